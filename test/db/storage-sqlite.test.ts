import { openStorage } from '../../db/sqlite-storage'
import { describeStorageContract } from './storage-contract'

describeStorageContract('SQLite', async () => {
  const storage = openStorage(':memory:')
  return { storage, dispose: () => storage.close() }
})
