package auth

import "strings"

// SandboxSuffix ends the id of every sandbox organization: the sandbox of
// the live organization "acme" is "acme~sandbox". The suffix is reserved:
// Keys refuses to mint or import a key for an organization whose id ends
// in it, so such an organization is reached only through a sandbox key of
// its live organization, and a portal should not give a live organization
// such an id (the example server's data file refuses it).
const SandboxSuffix = "~sandbox"

// SandboxOrgID returns the id of the sandbox organization of the live
// organization liveID: the organization a sandbox key of liveID reads.
func SandboxOrgID(liveID string) string { return liveID + SandboxSuffix }

// IsSandboxOrgID reports whether id is the id of a sandbox organization
// (it ends in SandboxSuffix).
func IsSandboxOrgID(id string) bool { return strings.HasSuffix(id, SandboxSuffix) }

// LiveOrgID returns the live organization of the sandbox organization id,
// and false when id is not one.
func LiveOrgID(id string) (string, bool) { return strings.CutSuffix(id, SandboxSuffix) }
