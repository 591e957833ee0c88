// The instance schema a module is built against: an in-memory `timoni.schema.cue` of the
// module's package binding `timoni: #Timoni`, with the health-check definitions beside it
// so modules can use them without vendoring a newer schema. Same rules as Timoni v0.32's
// #Timoni and #HealthCheck; written here.

export const INSTANCE_SCHEMA_FILE = 'timoni.schema.cue';

const schemaBody = `#Timoni: {
	apiVersion: string & =~"^v1alpha1$"
	instance: {...}
	apply: [string]: [...]
	healthChecks?: [string]: #HealthCheck
	kubeMinorVersion?: int
}

#HealthCheck: {
	group!: string & =~"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	kind?: string
	#object: {...}
	current!:    bool
	failed?:     bool
	inProgress?: bool
	...
}

#HealthCheckForCondition: #HealthCheck & {
	conditionType:       string | *"Ready"
	failedConditionType: string | *"Stalled"

	#object: {
		metadata: {generation?: int, ...}
		status?: {
			observedGeneration?: int
			conditions?: [...{type?: string, status?: string, observedGeneration?: int, ...}]
			...
		}
		...
	}

	let _fresh = {
		#c: {...}
		out: [
			if #c.observedGeneration != _|_ {#c.observedGeneration == #object.metadata.generation},
			true,
		][0]
	}

	inProgress: [
		if #object.status.observedGeneration != _|_ {
			#object.status.observedGeneration != #object.metadata.generation
		},
		false,
	][0]

	current: len([
		for c in #object.status.conditions
		if c.type == conditionType && c.status == "True"
		if (_fresh & {#c: c}).out {c},
	]) > 0

	failed: len([
		for c in #object.status.conditions
		if c.type == failedConditionType && c.status == "True"
		if (_fresh & {#c: c}).out {c},
	]) > 0
}

timoni: #Timoni
`;

/** The schema file's text for a module package (`main` unless the module says otherwise). */
export function instanceSchemaSource(packageName: string): string {
  return `package ${packageName}\n\n${schemaBody}`;
}
