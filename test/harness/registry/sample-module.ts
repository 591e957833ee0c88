// A small but complete Timoni module written to a temporary folder, for push tests:
// cue.mod with a vendored schema, timoni.cue, values.cue, templates, a README and a
// timoni.ignore.
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const sampleModuleFiles: Record<string, string> = {
  'cue.mod/module.cue': 'module: "timoni.sh/sample"\nlanguage: version: "v0.17.1"\n',
  'cue.mod/pkg/timoni.sh/core/v1alpha1/instance.cue':
    'package v1alpha1\n\n#Metadata: {\n\tname!: string\n\tnamespace!: string\n}\n',
  'cue.mod/gen/k8s.io/api/core/v1/types_go_gen.cue':
    'package v1\n\n#ConfigMap: {\n\tapiVersion: "v1"\n\tkind: "ConfigMap"\n\tdata?: {[string]: string}\n}\n',
  'timoni.cue':
    'package main\n\nimport templates "timoni.sh/sample/templates"\n\nvalues: templates.#Config\n\ntimoni: {\n\tapiVersion: "v1alpha1"\n\tinstance: templates.#Instance & {config: values}\n\tapply: app: [for obj in instance.objects {obj}]\n}\n',
  'values.cue': 'package main\n\nvalues: {\n\tmessage: "hello"\n}\n',
  'templates/config.cue':
    'package templates\n\n#Config: {\n\tmessage: *"hello" | string\n}\n\n#Instance: {\n\tconfig: #Config\n\tobjects: cm: {apiVersion: "v1", kind: "ConfigMap", data: message: config.message}\n}\n',
  'README.md': '# sample\n\nA module for the test registry.\n',
  'timoni.ignore': '# VCS\n.git/\n\n# CUE\n*_tool.cue\ndebug_values.cue\n',
  'debug_values.cue': 'package main\n\nvalues: message: "debug"\n',
  'build_tool.cue': 'package main\n',
};

/** Writes the sample module (plus `extraFiles`) to a new temporary folder and returns its path. */
export async function writeSampleModule(extraFiles: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'timoni-fleet-module-'));
  for (const [path, content] of Object.entries({ ...sampleModuleFiles, ...extraFiles })) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}
