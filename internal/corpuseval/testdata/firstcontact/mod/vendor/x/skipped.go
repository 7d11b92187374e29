package x

import "time"

// vendor folders are not scanned: this ticker is not a site.
func tick() { time.NewTicker(time.Second) }
