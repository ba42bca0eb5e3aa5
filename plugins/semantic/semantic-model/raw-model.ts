import type { CubeFile, DimensionFile, JoinFile, MeasureFile, PolicyFile, ViewFile } from './model-file'
import type { SourceRef } from './semantic-model'

// The model as written in its files, before the semantic checks: what the loader produces and the builder consumes.

/** A definition with where it was written. */
export interface Located<T> {
  def: T
  source: SourceRef
}

/** A cube as written (after `extends`), every part with its own location, before the semantic checks. */
export interface RawCube {
  def: CubeFile
  source: SourceRef
  measures: Located<MeasureFile>[]
  dimensions: Located<DimensionFile>[]
  joins: Located<JoinFile>[]
  policies: Located<PolicyFile>[] | null
}

export interface ParsedFile {
  cubes: RawCube[]
  views: Located<ViewFile>[]
}
