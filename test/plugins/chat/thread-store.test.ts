import { postgresAvailable, warnSkipped } from '../../helpers/database-servers'
import { postgresThreadStores, sqliteThreadStores } from '../../helpers/thread-stores'
import { threadStoreContract } from './thread-store-contract'

threadStoreContract('SQLite', sqliteThreadStores)
if (postgresAvailable) threadStoreContract('Postgres', postgresThreadStores)
else warnSkipped('ThreadStore on Postgres')
