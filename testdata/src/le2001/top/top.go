package top // want package:"2 scheduler sites"

// The package top imports wire: the pair was reported there, not again here.

import (
	"database/sql"

	"le2001/wire"
)

func Run(db *sql.DB) { wire.Main(db) }
