package bunstore

import (
	"reflect"
	"regexp"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// WithSchema puts the store's tables in the PostgreSQL schema name: every
// query names them "name".projects, "name".organizations, ..., so the
// store needs neither a search_path nor a pool of its own, and it never
// shadows a portal's table of the same name. Migrate given it creates the
// schema and the tables in it; give New (and Migrate) the same name.
//
// "" keeps the default: unqualified names, found through the connection's
// search_path (a search_path in the database URL, for instance). A name
// that is not a lower-case identifier needing no quotes (a letter or _,
// then letters, digits or _, at most 63 bytes) is an *option.Error: New
// panics with it and Migrate returns it.
func WithSchema(name string) Option {
	return func(c *config) { c.schema = name }
}

// schemaName is what WithSchema accepts: a lower-case SQL identifier,
// which PostgreSQL reads the same quoted or not, so that a portal's own
// SQL can name the store's tables without quotes.
var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// table is one of the store's tables by name, qualified with its schema
// when it has one: "schema"."projects", or "projects".
func (s *Store) table(name string) bun.Ident {
	if s.schema == "" {
		return bun.Ident(name)
	}
	return bun.Ident(s.schema + "." + name)
}

// tableOf is the Bun table of model: a row, a pointer to one, or a
// (pointer to a) slice of them.
func (s *Store) tableOf(model any) *schema.Table {
	t := reflect.TypeOf(model)
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return s.db.Dialect().Tables().Get(t)
}

// from is the table expression of model's table, as ModelTableExpr takes
// it: qualified, with the alias its model declares.
func (s *Store) from(model any) (string, bun.Ident, bun.Ident) {
	t := s.tableOf(model)
	return "? AS ?", s.table(t.Name), bun.Ident(t.Alias)
}

// newSelect, newInsert, newUpdate and newDelete start a query on model's
// table in the store's schema.
func (s *Store) newSelect(model any) *bun.SelectQuery {
	expr, name, alias := s.from(model)
	return s.db.NewSelect().Model(model).ModelTableExpr(expr, name, alias)
}

func (s *Store) newInsert(model any) *bun.InsertQuery {
	expr, name, alias := s.from(model)
	return s.db.NewInsert().Model(model).ModelTableExpr(expr, name, alias)
}

func (s *Store) newUpdate(model any) *bun.UpdateQuery {
	expr, name, alias := s.from(model)
	return s.db.NewUpdate().Model(model).ModelTableExpr(expr, name, alias)
}

func (s *Store) newDelete(model any) *bun.DeleteQuery {
	expr, name, alias := s.from(model)
	return s.db.NewDelete().Model(model).ModelTableExpr(expr, name, alias)
}
