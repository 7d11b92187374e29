package testserver

import "testing"

// The start benchmarks measure what a test pays for a private server: with
// the initdb template (under Main) a postgres start is a copy of the
// template plus the server's own startup.

func BenchmarkPostgresStart(b *testing.B) {
	spec := postgresSpec(b)
	for b.Loop() {
		s, err := Launch(spec)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func BenchmarkRedisStart(b *testing.B) {
	spec := redisSpec(b, RedisOptions{AOF: true})
	for b.Loop() {
		s, err := Launch(spec)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func BenchmarkPostgresRestart(b *testing.B) {
	pg := NewPostgres(b)
	for b.Loop() {
		pg.Restart(b)
	}
}
