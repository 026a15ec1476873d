package devsettings_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/devsettings"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// portalUser stands for the portal's own session lookup.
func portalUser(r *http.Request) (orgID, name string, admin, ok bool) {
	if c, err := r.Cookie("portal_session"); err == nil && c.Value == "ana" {
		return "org_a", "Ana Lima", true, true
	}
	return "", "", false, false
}

// A portal mounts the pages under /settings/ behind its own sign-in and
// tells them who is signed in.
func ExampleNew() {
	st := memstore.New()
	_ = st.PutOrganization(context.Background(), store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true})
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))

	account := func(r *http.Request) (devsettings.Account, bool) {
		org, name, admin, ok := portalUser(r)
		return devsettings.Account{OrgID: org, Name: name, Admin: admin}, ok
	}
	settings := devsettings.New(keys, st, account, devsettings.WithRequestLog(st))
	mux := http.NewServeMux()
	mux.Handle("/settings/", http.StripPrefix("/settings", settings))

	for _, signedIn := range []bool{false, true} {
		r := httptest.NewRequest("GET", "/settings/keys", nil)
		if signedIn {
			r.AddCookie(&http.Cookie{Name: "portal_session", Value: "ana"})
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("Cache-Control"))
	}
	// Output:
	// 401 no-store
	// 200 no-store
}
