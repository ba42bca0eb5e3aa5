import { describeProblem, ModelError } from '../../plugins/semantic/errors'
import { checkModelFolder } from '../../plugins/semantic/semantic-model/check-folder'
import type { BootstrapFile } from './model'

/**
 * The problems of the model folders a bootstrap file names, each at its path in the file
 * (`accounts[0].deployments[1].model: models/x: model folder not found`), so a start refuses the file before it
 * writes any of it: a deployment stored with a broken model stopped every later start, with or without the file.
 */
export function bootstrapModelProblems(file: BootstrapFile): string[] {
  const problems: string[] = []
  file.accounts.forEach((account, accountIndex) =>
    (account.deployments ?? []).forEach((deployment, index) => {
      const { model } = deployment
      if (model === undefined || model === 'demo') return
      try {
        checkModelFolder(model, deployment.branches?.length ? deployment.branches : ['main'])
      } catch (error) {
        if (!(error instanceof ModelError)) throw error
        const path = `accounts[${accountIndex}].deployments[${index}].model`
        problems.push(`${path}: ${error.problems.map(describeProblem).join('; ')}`)
      }
    }),
  )
  return problems
}
