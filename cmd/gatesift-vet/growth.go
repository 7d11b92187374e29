package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"
)

// growthEnv, when set to 1, makes the standalone driver print its growth
// curve to stderr: packages done, time and memory, about every 5% of the
// packages. The benchmark command (internal/corpuseval -perf) reads it; it
// is an environment variable, not a flag, because it is for measuring the
// tool, not for using it.
const growthEnv = "GATESIFT_VET_GROWTH"

// heapProfileEnv, when set to a path prefix with GATESIFT_VET_GROWTH=1,
// makes each growth line also write a heap profile (after a GC) to
// <prefix>-<packages done>.pb.gz, for `go tool pprof -inuse_space`: what
// holds the memory at each point of the curve.
const heapProfileEnv = "GATESIFT_VET_HEAPPROFILE"

// growthLine is the format the benchmark parses.
const growthLine = "gatesift-vet: growth: %d/%d packages %d ms rss %d KB peak %d KB\n"

type growth struct {
	mu          sync.Mutex
	w           io.Writer
	start       time.Time
	total, done int
	every       int
	heapPrefix  string
}

func newGrowth(w io.Writer, total int) *growth {
	if os.Getenv(growthEnv) != "1" {
		return nil
	}
	return &growth{w: w, start: time.Now(), total: total, every: max(1, total/20), heapPrefix: os.Getenv(heapProfileEnv)}
}

// packageDone counts one package (with or without analysis).
func (g *growth) packageDone() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done++
	if g.done%g.every == 0 || g.done == g.total {
		rss, peak := procMemory()
		fmt.Fprintf(g.w, growthLine, g.done, g.total, time.Since(g.start).Milliseconds(), rss, peak)
		if g.heapPrefix != "" {
			g.writeHeapProfile()
		}
	}
}

// procMemory is the current and peak resident set size in kilobytes, from
// /proc/self/status (zero where there is none).
func procMemory() (rss, peak int64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		fields := bytes.Fields(value)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(string(fields[0]), 10, 64)
		switch string(name) {
		case "VmRSS":
			rss = n
		case "VmHWM":
			peak = n
		}
	}
	return rss, peak
}

func (g *growth) writeHeapProfile() {
	name := fmt.Sprintf("%s-%d.pb.gz", g.heapPrefix, g.done)
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintf(g.w, "gatesift-vet: growth: %v\n", err)
		return
	}
	defer f.Close()
	runtime.GC() // the profile shows the live heap as of the last GC
	if err := pprof.WriteHeapProfile(f); err != nil {
		fmt.Fprintf(g.w, "gatesift-vet: growth: %v\n", err)
	}
}
