package apirecord_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/build/apirecord"
)

var v1 = []string{
	"pkg statusclient, func New(string, ...Option) *Client",
	"pkg statusclient, method (*Client) Projects(context.Context) ([]Project, error)",
	"pkg store, type Kind string",
}

const released = "# Changelog\n\n## [Unreleased]\n\n## [1.0.0] - 2026-11-28\n\n### Added\n\n- Everything.\n"

func TestCheckEqual(t *testing.T) {
	is := is.New(t)
	is.NoErr(apirecord.Check(v1, v1, released))
}

func TestCheckAdditionAsksForGenerate(t *testing.T) {
	is := is.New(t)
	current := append(append([]string(nil), v1...), "pkg store, const KindMilestone Kind = \"milestone\"")
	err := apirecord.Check(v1, current, released)
	is.True(err != nil)                                   // the record is stale
	is.True(!errors.Is(err, apirecord.ErrBreaking))       // an addition breaks nobody
	is.True(strings.Contains(err.Error(), "go generate")) // says how to update it
	is.True(strings.Contains(err.Error(), "+ pkg store, const KindMilestone"))
}

func TestCheckRemovalIsBreaking(t *testing.T) {
	is := is.New(t)
	err := apirecord.Check(v1, v1[1:], released)
	is.True(errors.Is(err, apirecord.ErrBreaking)) // a removal breaks callers
	is.True(strings.Contains(err.Error(), "- pkg statusclient, func New"))
	is.True(strings.Contains(err.Error(), "### Breaking")) // says how to record it
}

func TestCheckChangeIsBreaking(t *testing.T) {
	is := is.New(t)
	current := []string{
		"pkg statusclient, func New(string, *http.Client, ...Option) *Client",
		v1[1], v1[2],
	}
	err := apirecord.Check(v1, current, released)
	is.True(errors.Is(err, apirecord.ErrBreaking)) // a changed signature breaks callers
}

func TestCheckRemovalUnderNewMajor(t *testing.T) {
	is := is.New(t)
	changelog := strings.Replace(released, "## [Unreleased]\n", "## [Unreleased]\n\n## [2.0.0] - 2027-06-01\n\n### Removed\n\n- statusclient.New.\n", 1)
	err := apirecord.Check(v1, v1[1:], changelog)
	is.True(err != nil)                             // the record must still be regenerated
	is.True(!errors.Is(err, apirecord.ErrBreaking)) // but the removal is recorded as a new major version
	is.True(strings.Contains(err.Error(), "go generate"))
}

func TestNewMajor(t *testing.T) {
	is := is.New(t)
	is.True(!apirecord.NewMajor(released))
	is.True(!apirecord.NewMajor("## [1.4.0] - 2027-01-01\n"))
	is.True(apirecord.NewMajor("## [2.0.0] - 2027-01-01\n"))
	is.True(apirecord.NewMajor("## [v3.1.0]\n"))
	is.True(!apirecord.NewMajor("Mentions [2.0.0] in a sentence.\n"))
}

func TestParseFormat(t *testing.T) {
	is := is.New(t)
	is.Equal(apirecord.Parse(apirecord.Format(v1)), v1) // the header is a comment
}

func TestCheckChangeNamedUnderUnreleasedBreaking(t *testing.T) {
	is := is.New(t)
	current := []string{
		"pkg statusclient, func New(string, *http.Client, ...Option) *Client",
		v1[1], v1[2],
	}
	breaking := strings.Replace(released, "## [Unreleased]\n", "## [Unreleased]\n\n### Breaking\n\n- `statusclient.New` takes an *http.Client.\n", 1)
	err := apirecord.Check(v1, current, breaking)
	is.True(err != nil)                             // the record must still be regenerated
	is.True(!errors.Is(err, apirecord.ErrBreaking)) // the change is recorded as breaking

	other := strings.Replace(released, "## [Unreleased]\n", "## [Unreleased]\n\n### Breaking\n\n- `statusclient.Client` changed.\n", 1)
	is.True(errors.Is(apirecord.Check(v1, current, other), apirecord.ErrBreaking)) // naming another identifier allows nothing

	below := strings.Replace(released, "### Added\n", "### Breaking\n\n- `statusclient.New`.\n", 1)
	is.True(errors.Is(apirecord.Check(v1, current, below), apirecord.ErrBreaking)) // only the Unreleased section counts
}

func TestCheckMovedPackage(t *testing.T) {
	is := is.New(t)
	current := []string{"pkg clients/statusclient, func New(string, ...Option) *Client", v1[1], v1[2]}
	current[1] = strings.Replace(v1[1], "pkg statusclient", "pkg clients/statusclient", 1)
	moved := strings.Replace(released, "## [Unreleased]\n", "## [Unreleased]\n\n### Breaking\n\n- `statusclient` moved to `clients/statusclient`.\n", 1)
	err := apirecord.Check(v1, current, moved)
	is.True(err != nil)                             // the record must still be regenerated
	is.True(!errors.Is(err, apirecord.ErrBreaking)) // the move is recorded as breaking

	other := strings.Replace(released, "## [Unreleased]\n", "## [Unreleased]\n\n### Breaking\n\n- `store` moved to `clients/store`.\n", 1)
	is.True(errors.Is(apirecord.Check(v1, current, other), apirecord.ErrBreaking)) // another package's move allows nothing
}

func TestIdentifier(t *testing.T) {
	is := is.New(t)
	is.Equal(apirecord.Identifier("pkg store, type Store interface { GetProject, ListProjects }"), "store.Store")
	is.Equal(apirecord.Identifier("pkg store, type Store interface, GetProject(context.Context, string, string) (Project, error)"), "store.Store")
	is.Equal(apirecord.Identifier("pkg statusclient, method (*Client) Projects(context.Context) ([]Project, error)"), "statusclient.Client")
	is.Equal(apirecord.Identifier("pkg statusapi, const MinSigningKeyLen untyped int = 16"), "statusapi.MinSigningKeyLen")
	is.Equal(apirecord.Identifier("pkg bunstore, func Open(context.Context, string, ...Option) (*Store, error)"), "bunstore.Open")
	is.Equal(apirecord.Identifier("pkg store, type Page[T any] struct, Items []T"), "store.Page")
}
