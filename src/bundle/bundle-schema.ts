// The bundle schema timoni-fleet validates against, with the same rules as Timoni's
// v1alpha1 #Bundle: apiVersion v1alpha1; bundle name, instance names and namespaces are
// lowercase DNS-like names of 1 to 63 characters; `module` is closed (url, version with
// default "latest", optional digest); values are open. It is loaded beside the user's
// files as one more file of the anonymous package, bound to `bundle`.

const dnsLikeName = '=~"^(([a-z0-9][-a-z0-9_.]*)?[a-z0-9])?$" & strings.MinRunes(1) & strings.MaxRunes(63)';

export const BUNDLE_SCHEMA_FILE_NAME = 'timoni-fleet.bundle-schema.cue';

export const BUNDLE_SCHEMA = `import "strings"

#Bundle: {
	apiVersion: string & =~"^v1alpha1$"
	name:       string & ${dnsLikeName}
	instances: [string & ${dnsLikeName}]: {
		module: close({
			url:     string & =~"^(oci|file)://.*$"
			version: *"latest" | string
			digest?: string
		})
		namespace: string & ${dnsLikeName}
		values: {...}
	}
}

bundle: #Bundle
`;
