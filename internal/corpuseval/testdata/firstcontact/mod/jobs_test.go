package fixture

import "time"

// Test files are not scanned: this ticker is not a site.
func tick() { time.NewTicker(time.Second) }
