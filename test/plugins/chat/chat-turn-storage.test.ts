import { sqliteThreadStores } from '../../helpers/thread-stores'
import { chatTurnStorage } from './chat-turn-storage-contract'

// On Postgres: test/e2e/plugins/chat/chat-turn-storage.test.ts.
chatTurnStorage('SQLite', sqliteThreadStores)
