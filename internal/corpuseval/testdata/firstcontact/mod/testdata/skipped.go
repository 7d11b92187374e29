package skipped

import "time"

// testdata folders are not scanned: this ticker is not a site.
func tick() { time.NewTicker(time.Second) }
