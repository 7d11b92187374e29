package config

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Digest hashes every .gatesift.yaml that can affect packages below dir: the
// files from dir up to the module root and every file inside that module.
// go vet keys its result cache on the tool's -V=full output and flags; the
// binary puts this digest in both, so editing a config is never hidden by a
// cached result.
func Digest(dir string) string {
	root := moduleRoot(dir)
	var files []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		files = append(files, filepath.Join(d, FileName))
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	if root != "" {
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() {
				name := e.Name()
				if p != root && (strings.HasPrefix(name, ".") || name == "vendor" || name == "testdata" || name == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if e.Name() == FileName {
				files = append(files, p)
			}
			return nil
		})
	}
	if Overrides.File != "" {
		files = append(files, Overrides.File)
	}
	sort.Strings(files)
	h := sha256.New()
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		h.Write([]byte(f))
		h.Write([]byte{0})
		h.Write(data)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func moduleRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
