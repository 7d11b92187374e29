// Package config holds the settings every component of the fixture program
// shares; it knows nothing of elections.
package config

// Server is shared by the provider (which closes Elected once its manager
// wins) and the runners (which wait on it).
type Server struct {
	Name string
	// Elected is closed when this replica becomes leader.
	Elected chan struct{}
	// Synced is closed when the caches are warm, on every replica.
	Synced chan struct{}
}
