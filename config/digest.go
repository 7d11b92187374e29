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

// Files lists every .gatesift.yaml that can affect packages below dir: the
// files from dir up to the module root, every file inside that module (but
// in directories that hold no analyzed package: hidden ones, vendor,
// testdata, node_modules), and the source's override file. Only files that
// exist are listed, sorted, each once.
func (src Source) Files(dir string) []string {
	root := moduleRoot(dir)
	var candidates []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		candidates = append(candidates, filepath.Join(d, FileName))
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
				candidates = append(candidates, p)
			}
			return nil
		})
	}
	if src.File != "" {
		candidates = append(candidates, src.File)
	}
	sort.Strings(candidates)
	var files []string
	for i, f := range candidates {
		if i > 0 && f == candidates[i-1] {
			continue
		}
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			files = append(files, f)
		}
	}
	return files
}

// Digest hashes the files Files lists, names and contents. go vet keys its
// result cache on the tool's -V=full output and flags; the binary puts this
// digest in both, so editing a config is never hidden by a cached result.
func (src Source) Digest(dir string) string {
	return src.DigestFiles(src.Files(dir))
}

// DigestFiles hashes the given files, for a caller that already listed them.
func (src Source) DigestFiles(files []string) string {
	h := sha256.New()
	for _, f := range files {
		data, err := src.readFile(f)
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
