package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

const meminfoSample = "MemTotal:       24683652 kB\nMemFree:        12410000 kB\nMemAvailable:    2000000 kB\n"

func TestMemoryLimitIsNineTenthsOfTheSmallerBudget(t *testing.T) {
	avail := int64(2000000) << 10
	for _, c := range []struct {
		name    string
		meminfo string
		cgroup  int64
		want    int64
	}{
		{"available memory only", meminfoSample, 0, avail / 10 * 9},
		{"a cgroup limit below it", meminfoSample, 1 << 30, (1 << 30) / 10 * 9},
		{"a cgroup limit above it", meminfoSample, 4 << 30, avail / 10 * 9},
		{"a cgroup limit and no meminfo", "", 1 << 30, (1 << 30) / 10 * 9},
		{"nothing known", "", 0, 0},
		{"MemAvailable missing", "MemTotal: 24683652 kB\n", 0, 0},
		{"MemAvailable in another unit", "MemAvailable: 2000000 MB\n", 0, 0},
	} {
		if got := memoryLimit([]byte(c.meminfo), c.cgroup); got != c.want {
			t.Errorf("%s: memoryLimit = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestCgroupLimitIsTheSmallestOnThePath(t *testing.T) {
	files := map[string]string{
		// v2: the job's cgroup has no limit of its own, its parent has.
		"/sys/fs/cgroup/ci/job/memory.max": "max\n",
		"/sys/fs/cgroup/ci/memory.max":     "7516192768\n",
		"/sys/fs/cgroup/memory.max":        "max\n",
		// v1: unlimited is a page-rounded MaxInt64.
		"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "2147483648\n",
		"/sys/fs/cgroup/memory/docker/memory.limit_in_bytes":     "9223372036854771712\n",
		"/sys/fs/cgroup/memory/memory.limit_in_bytes":            "9223372036854771712\n",
		"/sys/fs/cgroup/memory/free/memory.limit_in_bytes":       "9223372036854771712\n",
	}
	read := func(name string) []byte {
		if s, ok := files[name]; ok {
			return []byte(s)
		}
		return nil
	}
	for _, c := range []struct {
		name, self string
		want       int64
	}{
		{"v2, limit on the parent", "0::/ci/job\n", 7516192768},
		{"v2, at the root", "0::/\n", 0},
		{"v1, limit on the cgroup", "4:memory:/docker/abc\n3:cpu:/docker/abc\n", 2147483648},
		{"v1 with other controllers", "4:cpuacct,memory:/docker/abc\n", 2147483648},
		{"v1, unlimited", "4:memory:/free\n", 0},
		{"no memory controller", "3:cpu:/docker/abc\n", 0},
		{"both, the smaller", "4:memory:/docker/abc\n0::/ci/job\n", 2147483648},
		{"nothing", "", 0},
	} {
		if got := cgroupLimit([]byte(c.self), read); got != c.want {
			t.Errorf("%s: cgroupLimit = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestSetMemoryLimitLeavesTheUsersLimit(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo: nothing says how much memory there is")
	}
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	limit := setMemoryLimit()
	if limit <= 0 || debug.SetMemoryLimit(-1) != limit {
		t.Fatalf("without GOMEMLIMIT: setMemoryLimit = %d, runtime limit %d; want the same positive limit", limit, debug.SetMemoryLimit(-1))
	}

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	if limit := setMemoryLimit(); limit != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Fatalf("with GOMEMLIMIT set: setMemoryLimit = %d, runtime limit %d; want both left alone", limit, debug.SetMemoryLimit(-1))
	}
}

func TestSetGCPercentLeavesTheUsersGOGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })

	if pct := setGCPercent(""); pct != standaloneGCPercent || debug.SetGCPercent(100) != standaloneGCPercent {
		t.Fatalf("without GOGC: setGCPercent = %d; want the runtime at %d", pct, standaloneGCPercent)
	}
	if pct := setGCPercent("200"); pct != 0 || debug.SetGCPercent(100) != 100 {
		t.Fatalf("with GOGC set: setGCPercent = %d; want 0 and the runtime's percent left alone", pct)
	}
}
