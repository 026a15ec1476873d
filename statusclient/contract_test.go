package statusclient_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/test/gosource"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// The tests in this file pin the client's error codes and enums to the
// server's, so that neither side can gain or lose a value alone. The server's
// error catalogue is the set of constants of type envelope.Code, and the
// client's the constants of type statusclient.ErrorCode; both are read from
// the packages' sources (internal/test/gosource), so there is no third list to
// keep in step. Each enum of the client is paired with the store's type of
// the same name, also read from the sources.

func TestErrorCodesAreTheServers(t *testing.T) {
	is := is.New(t)
	server := constsOf(t, reflect.TypeFor[envelope.Code]())
	client := constsOf(t, reflect.TypeFor[statusclient.ErrorCode]())
	is.True(slices.Contains(server, string(envelope.NotFound)))         // the catalogue was read
	is.True(slices.Contains(client, string(statusclient.CodeNotFound))) // and the client's codes
	is.Equal(client, server)                                            // every code of the server's catalogue, and no other
}

// TestStatusEnumsAreTheStores checks every enum of the client (an
// exported string type with constants, found in the package's sources,
// not listed) against the server's: the store's type of the same name
// (ProjectStatus...), whose constants the store validates against, or, for
// the few named otherwise, what the table below says. A new resource's
// status enum is checked with no edit here, and an enum with no
// counterpart fails until it has one.
func TestStatusEnumsAreTheStores(t *testing.T) {
	client := gosource.Enums(t, reflect.TypeFor[statusclient.Client]().PkgPath())
	server := gosource.Enums(t, reflect.TypeFor[store.Kind]().PkgPath())
	otherwise := map[string][]string{
		"DeletionType": strs(store.Kinds),
		"AboutType":    strs(aboutKinds()),
		"ErrorCode":    nil, // envelope.Code's: TestErrorCodesAreTheServers
		"Expand":       nil, // a parameter's value, asked of the real handler in TestRealHandlerSingleItemsAndExpand
	}
	is.New(t).True(len(client) >= 8) // the enums were found
	gosource.Match(t, "statusclient", client, server, otherwise)
}

// aboutKinds are the kinds of item the store lets a thread be about: those
// of store.Kinds that store.Thread.Validate accepts in About.
func aboutKinds() []store.Kind {
	var out []store.Kind
	for _, k := range store.Kinds {
		th := store.Thread{ID: "t", OrgID: "o", Status: store.ThreadOpen, About: &store.Ref{Kind: k, ID: "x"}}
		if th.Validate() == nil {
			out = append(out, k)
		}
	}
	return out
}

func strs[S ~string](vs []S) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// constsOf returns, sorted, the values of the constants of type typ declared
// in typ's package, read from its sources.
func constsOf(t *testing.T, typ reflect.Type) []string {
	t.Helper()
	return gosource.Consts(t, typ.PkgPath(), typ.Name())
}
