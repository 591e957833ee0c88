// Loads the user's files as one anonymous CUE package in the engine's in-memory
// workspace, after injecting runtime values into each file's source, as Timoni's bundle
// and runtime builders do. Positions in errors keep the user's file names.
import { CueError, type CueEngine, type CueValue } from '../cue/index.js';
import { CueFilesError } from './cue-files-error.js';
import { workspaceName, type SourceFile } from './source-files.js';

export interface SourcePackageInput {
  /** Folder of the workspace inside the engine's virtual file system. */
  workspace: string;
  files: SourceFile[];
  moduleFiles: Record<string, string>;
  values: Record<string, string>;
  /** Generated files added to the package, by name (placed in the workspace). */
  extraFiles: Record<string, string>;
  context: string;
}

function injectedSource(engine: CueEngine, file: SourceFile, values: Record<string, string>): string {
  // A CUE file without a runtime attribute that has a value is passed through untouched,
  // so that every position in an error is exactly the user's.
  if (file.format === 'cue') {
    const attributes = engine.listRuntimeAttributes(file.path, file.content);
    if (!attributes.some((attribute) => attribute.name in values)) return file.content;
  }
  return engine.injectRuntimeValues(file.path, file.content, values);
}

export function loadSourcePackage(engine: CueEngine, input: SourcePackageInput): CueValue {
  const files: Record<string, string> = { ...input.moduleFiles };
  const displayNames: Record<string, string> = {};
  const args: string[] = [];
  try {
    input.files.forEach((file, index) => {
      const name = workspaceName(input.workspace, index, file);
      files[name] = injectedSource(engine, file, input.values);
      displayNames[name] = file.path;
      args.push(name);
    });
    for (const [fileName, content] of Object.entries(input.extraFiles)) {
      const name = `${input.workspace}/${input.files.length}.${fileName}`;
      files[name] = content;
      displayNames[name] = fileName;
      args.push(name);
    }
    return engine.load({ files, args, package: '_', dataFiles: true, displayNames });
  } catch (error) {
    if (error instanceof CueError) {
      throw new CueFilesError(`failed to load ${input.context}`, error.diagnostics, new Set(input.files.map((f) => f.path)));
    }
    throw error;
  }
}
