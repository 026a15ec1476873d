package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// TestDiff checks what diff puts and removes: new and changed items (not
// those whose only change is updatedAt), and removed ones, except those
// of a removed organization, which takes them with it.
func TestDiff(t *testing.T) {
	is := is.New(t)
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	old := &dataset{
		orgs: []store.Organization{{ID: "org_a"}, {ID: "org_b"}},
		keys: []apiKey{{OrgID: "org_a", Key: "k1"}, {OrgID: "org_a", Key: "k2"}, {OrgID: "org_b", Key: "k3"}},
		projects: []store.Project{
			{ID: "p1", OrgID: "org_a", Name: "Same", UpdatedAt: day},
			{ID: "p2", OrgID: "org_a", Name: "Before"},
			{ID: "p3", OrgID: "org_a", Name: "Removed"},
			{ID: "p1", OrgID: "org_b", Name: "Of a removed organization"},
		},
	}
	ds := &dataset{
		orgs: []store.Organization{{ID: "org_a"}},
		keys: []apiKey{{OrgID: "org_a", Key: "k1"}, {OrgID: "org_a", Key: "k4"}},
		projects: []store.Project{
			{ID: "p1", OrgID: "org_a", Name: "Same", UpdatedAt: day.Add(time.Hour)}, // updatedAt is the store's
			{ID: "p2", OrgID: "org_a", Name: "After"},
			{ID: "p4", OrgID: "org_a", Name: "New"},
		},
	}
	c := diff(old, ds)
	names := func(s section, es []entry) []string {
		out := []string{}
		for _, e := range es {
			out = append(out, s.itemName(e))
		}
		return out
	}
	got := map[string]string{}
	for i, s := range sections {
		got[s.name] = fmt.Sprint("put ", names(s, c.put[i]), " remove ", names(s, c.remove[i]))
	}
	is.Equal(got, map[string]string{
		"organizations": `put [] remove [organizations[1] (id "org_b")]`,
		"apiKeys":       `put [apiKeys[1]] remove [apiKeys[1]]`, // keys are named by index, never by the key
		"projects":      `put [projects[1] (id "p2") projects[2] (id "p4")] remove [projects[2] (id "p3")]`,
		"milestones":    `put [] remove []`,
		"deliverables":  `put [] remove []`,
		"invoices":      `put [] remove []`,
		"threads":       `put [] remove []`,
		"messages":      `put [] remove []`,
	})
	is.Equal(c.goneOrgs, map[string]bool{"org_b": true})

	c = diff(&dataset{}, ds) // loading is a change from nothing
	projects := sectionIndex("projects")
	is.Equal(len(c.put[projects]), 3)
	is.Equal(len(c.remove[projects]), 0)
}
