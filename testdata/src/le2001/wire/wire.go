package wire // want package:"2 scheduler sites"

// The package wire starts both jobs: the deepest package that sees both sites.

import (
	"database/sql"

	"le2001/billing"
	"le2001/cleanup"
)

func Main(db *sql.DB) {
	cleanup.Start(db)
	go billing.Run(db) // want `time.NewTicker every 1m0s in Run and time.Tick every 10m0s in Start both write table orders`
}
