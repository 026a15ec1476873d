package pgtemp

import (
	"context"
	"crypto/rand"
	"errors"
	"net/url"
	"strings"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
)

// Schema creates and migrates a schema named prefix and a random suffix
// in the database of dsn. It returns the schema's name, dsn with the
// schema as its search_path, and drop, which drops the schema.
func Schema(ctx context.Context, dsn, prefix string) (name, schemaDSN string, drop func() error, err error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", "", nil, errors.New("want a postgres:// URL")
	}
	admin, err := bunstore.Open(ctx, dsn)
	if err != nil {
		return "", "", nil, err
	}
	name = prefix + strings.ToLower(rand.Text()[:12])
	drop = func() error {
		defer admin.Close()
		_, err := admin.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(name))
		return err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA ?", bun.Ident(name)); err != nil {
		admin.Close()
		return "", "", nil, err
	}
	db, err := bunstore.Open(ctx, u.String())
	if err == nil {
		err = bunstore.Migrate(ctx, db)
		db.Close()
	}
	if err != nil {
		_ = drop()
		return "", "", nil, err
	}
	return name, u.String(), drop, nil
}
