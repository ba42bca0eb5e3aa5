import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ModelError } from '../errors'
import type { ModelSource } from './model-loader'

/** A folder model's files for one branch, and its own data file when it brings one. */
export interface FolderModelFiles {
  base: ModelSource[]
  branch: ModelSource[]
  /** `data.db` in the folder, if present; otherwise queries read the demo data. */
  dataPath: string | undefined
}

const MODEL_FILE = /\.ya?ml$/i

function readSources(folder: string, shownAs: string): ModelSource[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && MODEL_FILE.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ file: `${shownAs}/${name}`, text: readFileSync(join(folder, name), 'utf8') }))
}

/**
 * Reads a folder model: `*.yml`/`*.yaml` at its top for the default branch, plus `branches/<branch>/*.yml` for
 * another branch (its cubes and views replace or extend those of the same name). Relative folders are resolved
 * from the working directory.
 */
export function readFolderModel(folder: string, branch: string | undefined): FolderModelFiles {
  const root = resolve(folder)
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new ModelError(folder, [{ file: folder, line: 0, member: '', message: 'model folder not found' }])
  const base = readSources(root, folder)
  if (base.length === 0)
    throw new ModelError(folder, [
      { file: folder, line: 0, member: '', message: 'no *.yml or *.yaml model files in the folder' },
    ])
  // Branch names come from the deployment's configuration, but never let one climb out of `branches/`.
  const safeBranch = branch !== undefined && !branch.split('/').includes('..') ? branch : undefined
  const branchFolder = safeBranch ? join(root, 'branches', safeBranch) : undefined
  const branchSources =
    branchFolder && existsSync(branchFolder) ? readSources(branchFolder, `${folder}/branches/${safeBranch}`) : []
  const dataFile = join(root, 'data.db')
  return { base, branch: branchSources, dataPath: existsSync(dataFile) ? dataFile : undefined }
}
