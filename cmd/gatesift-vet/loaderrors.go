package main

import (
	"go/scanner"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The packages a run did not analyze, kept as data so that every output
// carries them (stderr as soon as known, JSON, SARIF), not only the log: a
// CI gate reading SARIF or JSON must see that a package was not analyzed.

// packageError is one reason a package does not load: a go list, parse or
// type error, with its position when the error has one.
type packageError struct {
	pos token.Position // Filename "" when unknown; Line/Column 0 when unknown
	msg string
}

// String is the error as go vet prints it: "file:line:col: msg", or the
// message alone when there is no position.
func (e packageError) String() string {
	if e.pos.Filename == "" {
		return e.msg
	}
	return e.pos.String() + ": " + e.msg
}

// brokenPackage is a package that does not load or type-check.
type brokenPackage struct {
	pkgID string
	errs  []packageError
}

// skippedPackage is a package that loads but is not analyzed because some
// of its imports (directly) do not load, or were skipped themselves.
type skippedPackage struct {
	pkgID   string
	imports []string // the IDs of those imports, sorted
}

// fromPackagesErrors converts go list's errors; their Pos is a string,
// "file:line:col", "file:line", "file" or "" (or "-"), and the go command
// makes a file name relative to the directory it runs in (dir) when that
// is shorter.
func fromPackagesErrors(errs []packages.Error, dir string) []packageError {
	var out []packageError
	for _, err := range errs {
		pos := parsePosition(err.Pos)
		if pos.Filename != "" && !filepath.IsAbs(pos.Filename) {
			pos.Filename = filepath.Join(dir, pos.Filename)
		}
		out = append(out, packageError{pos: pos, msg: err.Msg})
	}
	return out
}

// parsePosition reads "file:line:col", "file:line" or "file"; a file name
// may itself contain colons (a Windows drive), so numbers are taken from
// the right.
func parsePosition(s string) token.Position {
	if s == "" || s == "-" {
		return token.Position{}
	}
	var nums []int
	rest := s
	for len(nums) < 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil || n < 0 {
			break
		}
		nums = append(nums, n)
		rest = rest[:i]
	}
	p := token.Position{Filename: rest}
	switch len(nums) {
	case 1:
		p.Line = nums[0]
	case 2:
		p.Line, p.Column = nums[1], nums[0]
	}
	return p
}

// fromError converts a parse or type error, keeping its position.
func fromError(fset *token.FileSet, err error) packageError {
	switch err := err.(type) {
	case types.Error:
		return packageError{pos: fset.Position(err.Pos), msg: err.Msg}
	case *scanner.Error:
		return packageError{pos: err.Pos, msg: err.Msg}
	}
	return packageError{msg: err.Error()}
}
