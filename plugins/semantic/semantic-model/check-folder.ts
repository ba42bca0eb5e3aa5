import { readFolderModel } from './folder-model'
import { loadModel } from './model-loader'

/** Loads a folder model on each branch, as the start would; the branches, or the first problem's `ModelError`. */
export function checkModelFolder(folder: string, branches: readonly string[]): readonly string[] {
  branches.forEach((branch, index) => {
    const overlay = index === 0 ? undefined : branch
    const files = readFolderModel(folder, overlay)
    loadModel(`${folder}${overlay ? ` (branch ${overlay})` : ''}`, files.base, files.branch)
  })
  return branches
}
