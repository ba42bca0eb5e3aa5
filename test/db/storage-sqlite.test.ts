import { openStorage } from '../../db/client'
import { describeStorageContract } from './storage-contract'

describeStorageContract('SQLite', async () => {
  const storage = openStorage(':memory:')
  return { storage, dispose: () => storage.close() }
})
