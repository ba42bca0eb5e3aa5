import { postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import { postgresThreadStores } from '../../../helpers/thread-stores'
import { chatTurnStorage } from '../../../plugins/chat/chat-turn-storage-contract'

// On SQLite: test/plugins/chat/chat-turn-storage.test.ts.
if (postgresAvailable) chatTurnStorage('Postgres', postgresThreadStores)
else warnSkipped('chat turns on Postgres')
