// Package pgtemp makes the PostgreSQL schema of one run of a measuring
// tool: migrated by bunstore, reached through the search_path, dropped
// at the end.
package pgtemp
