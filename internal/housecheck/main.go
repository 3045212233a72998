// Command housecheck keeps the tree in the shape the project agreed on. It
// fails (exit 1) on
//
//   - a non-test Go file longer than -max-lines lines (generated files,
//     marked "Code generated … DO NOT EDIT.", are exempt);
//   - a commit hash in a Go comment or in README.md (a run of 7 to 40 hex
//     digits with at least one letter and one digit; Go pseudo-versions
//     and 0x literals are not hashes);
//   - an exported identifier of a non-main, non-test file without a doc
//     comment.
//
// With -counts it prints the layout's figures instead: lines per package
// and the largest package's share, package-level variables of basic type
// (switches), one-statement forwarding methods, and comment blocks that
// quote timings or hashes. Run it from the module root:
//
//	go run ./internal/housecheck
//	go run ./internal/housecheck -counts
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

var (
	hashRE   = regexp.MustCompile(`(^|[^0-9A-Za-z_.\-])([0-9a-f]{7,40})([^0-9A-Za-z_]|$)`)
	timingRE = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ms|µs|us|ns|s|GFLOP/s)\b`)
)

// isHash reports whether s, a run of hex digits, looks like a commit hash.
func isHash(s string) bool {
	return strings.ContainsAny(s, "abcdef") && strings.ContainsAny(s, "0123456789")
}

// hashes returns the commit hashes in a line of text.
func hashes(line string) []string {
	var out []string
	for _, m := range hashRE.FindAllStringSubmatch(line, -1) {
		if isHash(m[2]) {
			out = append(out, m[2])
		}
	}
	return out
}

type problem struct {
	pos string
	msg string
}

func main() {
	counts := flag.Bool("counts", false, "print the layout's figures instead of checking")
	maxLines := flag.Int("max-lines", 500, "longest non-test Go file allowed")
	flag.Parse()
	fset, files, parsed, err := load(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "housecheck:", err)
		os.Exit(2)
	}
	if *counts {
		printCounts(fset, files, parsed)
		return
	}
	probs := check(fset, files, parsed, *maxLines)
	probs = append(probs, readmeHashes("README.md")...)
	for _, p := range probs {
		fmt.Printf("%s: %s\n", p.pos, p.msg)
	}
	if len(probs) > 0 {
		fmt.Printf("housecheck: %d problems\n", len(probs))
		os.Exit(1)
	}
	fmt.Println("housecheck: ok")
}

// load parses every Go file below root, skipping testdata, vendor and
// folders whose names start with "." or "_", as the go command does.
func load(root string) (*token.FileSet, []string, map[string]*ast.File, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	sort.Strings(files)
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		parsed[f] = af
	}
	return fset, files, parsed, nil
}

// check returns the problems of the parsed Go files.
func check(fset *token.FileSet, files []string, parsed map[string]*ast.File, maxLines int) []problem {
	var probs []problem
	for _, f := range files {
		af := parsed[f]
		test := strings.HasSuffix(f, "_test.go")
		if !test && !ast.IsGenerated(af) {
			if n := fset.File(af.Pos()).LineCount(); n > maxLines {
				probs = append(probs, problem{f, fmt.Sprintf("%d lines, more than %d: split it by what its parts do", n, maxLines)})
			}
		}
		for _, cg := range af.Comments {
			for _, c := range cg.List {
				for _, h := range hashes(c.Text) {
					probs = append(probs, problem{fset.Position(c.Pos()).String(), fmt.Sprintf("commit hash %s in a comment: history goes to bench/NOTES.md", h)})
				}
			}
		}
		if !test && af.Name.Name != "main" {
			probs = append(probs, undocumented(fset, af)...)
		}
	}
	return probs
}

// readmeHashes reports the commit hashes in a Markdown file.
func readmeHashes(path string) []problem {
	f, err := os.Open(path)
	if err != nil {
		return []problem{{path, err.Error()}}
	}
	defer f.Close()
	var probs []problem
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		for _, h := range hashes(sc.Text()) {
			probs = append(probs, problem{fmt.Sprintf("%s:%d", path, n), fmt.Sprintf("commit hash %s: history goes to bench/NOTES.md", h)})
		}
	}
	return probs
}

// undocumented returns the exported declarations of af without a doc
// comment: functions, methods of exported types, types, and constants and
// variables whose spec and group both lack one.
func undocumented(fset *token.FileSet, af *ast.File) []problem {
	var probs []problem
	report := func(pos token.Pos, what string) {
		probs = append(probs, problem{fset.Position(pos).String(), what + " has no doc comment"})
	}
	for _, decl := range af.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv != nil {
				if recv := receiverName(d.Recv.List[0].Type); !ast.IsExported(recv) {
					continue
				} else {
					report(d.Pos(), "method "+recv+"."+d.Name.Name)
				}
				continue
			}
			report(d.Pos(), "func "+d.Name.Name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
						report(s.Pos(), "type "+s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
							report(n.Pos(), d.Tok.String()+" "+n.Name)
						}
					}
				}
			}
		}
	}
	return probs
}

func receiverName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// printCounts prints the figures the layout is judged by.
func printCounts(fset *token.FileSet, files []string, parsed map[string]*ast.File) {
	lines := map[string]int{}
	total, switches, fwdLines, fwdCount, notebook := 0, 0, 0, 0, 0
	var switchNames []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af := parsed[f]
		n := fset.File(af.Pos()).LineCount()
		lines[filepath.Dir(f)] += n
		total += n
		for _, decl := range af.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, spec := range d.Specs {
					s := spec.(*ast.ValueSpec)
					if basicSwitch(s) {
						for _, n := range s.Names {
							switches++
							switchNames = append(switchNames, f+":"+n.Name)
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && forwarding(d) {
					fwdCount++
					fwdLines += fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1
				}
			}
		}
		for _, cg := range af.Comments {
			text := cg.Text()
			if timingRE.MatchString(text) || len(hashes(text)) > 0 {
				notebook++
			}
		}
	}
	var pkgs []string
	for p := range lines {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return lines[pkgs[i]] > lines[pkgs[j]] })
	fmt.Printf("non-test Go lines: %d\n", total)
	for i, p := range pkgs {
		if i == 8 {
			break
		}
		fmt.Printf("  %-28s %6d  %4.1f %%\n", p, lines[p], 100*float64(lines[p])/float64(total))
	}
	fmt.Printf("package-level variables of basic type (switches): %d\n", switches)
	for _, s := range switchNames {
		fmt.Printf("  %s\n", s)
	}
	fmt.Printf("one-statement forwarding methods: %d, %d lines\n", fwdCount, fwdLines)
	fmt.Printf("comment blocks quoting timings or hashes: %d\n", notebook)
}

// basicSwitch reports whether a package-level variable holds a bool,
// number or string (a knob code or tests can flip), not an error, pool or
// table.
func basicSwitch(s *ast.ValueSpec) bool {
	if id, ok := s.Type.(*ast.Ident); ok {
		switch id.Name {
		case "bool", "int", "int64", "float64", "string", "uint64":
			return true
		}
		return false
	}
	if s.Type != nil {
		return false
	}
	for _, v := range s.Values {
		switch x := v.(type) {
		case *ast.BasicLit:
			return true
		case *ast.Ident:
			return x.Name == "true" || x.Name == "false"
		case *ast.BinaryExpr:
			_, l := x.X.(*ast.BasicLit)
			return l
		}
	}
	return false
}

// forwarding reports whether a method's body is a single statement that
// returns or makes one call.
func forwarding(d *ast.FuncDecl) bool {
	if d.Body == nil || len(d.Body.List) != 1 {
		return false
	}
	switch s := d.Body.List[0].(type) {
	case *ast.ReturnStmt:
		if len(s.Results) != 1 {
			return false
		}
		switch s.Results[0].(type) {
		case *ast.CallExpr, *ast.SelectorExpr:
			return true
		}
	case *ast.ExprStmt:
		_, ok := s.X.(*ast.CallExpr)
		return ok
	}
	return false
}
