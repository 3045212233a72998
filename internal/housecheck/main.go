// Command housecheck keeps the tree in the shape the project agreed on. It
// fails (exit 1) on
//
//   - a non-test Go file longer than -max-lines lines (generated files,
//     marked "Code generated … DO NOT EDIT.", are exempt);
//   - a commit hash in a Go comment or in README.md (a run of 7 to 40 hex
//     digits with at least one letter and one digit; Go pseudo-versions
//     and 0x literals are not hashes);
//   - an exported identifier of a non-main, non-test file without a doc
//     comment;
//   - a switch: a package-level variable of basic type (bool, number or
//     string) that is exported, or that is assigned anywhere other than
//     its declaration, test files included. Tests choose a path by passing
//     it to an unexported function, not by flipping a variable.
//
// With -counts it prints the layout's figures instead: lines per package
// and the largest package's share, switches, one-statement forwarding
// methods, and comment blocks that quote timings or hashes, each switch
// and block by its position. Run it from the module root:
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
	probs = append(probs, switches(fset, files, parsed)...)
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
	total, fwdLines, fwdCount, notebook := 0, 0, 0, 0
	var notebookAt []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af := parsed[f]
		n := fset.File(af.Pos()).LineCount()
		lines[filepath.Dir(f)] += n
		total += n
		for _, decl := range af.Decls {
			if d, ok := decl.(*ast.FuncDecl); ok && d.Recv != nil && forwarding(d) {
				fwdCount++
				fwdLines += fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1
			}
		}
		for _, cg := range af.Comments {
			text := cg.Text()
			if timingRE.MatchString(text) || len(hashes(text)) > 0 {
				notebook++
				notebookAt = append(notebookAt, fset.Position(cg.Pos()).String())
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
	sw := switches(fset, files, parsed)
	fmt.Printf("package-level mutable switches: %d\n", len(sw))
	for _, s := range sw {
		fmt.Printf("  %s: %s\n", s.pos, s.msg)
	}
	fmt.Printf("one-statement forwarding methods: %d, %d lines\n", fwdCount, fwdLines)
	fmt.Printf("comment blocks quoting timings or hashes: %d\n", notebook)
	for _, at := range notebookAt {
		fmt.Printf("  %s\n", at)
	}
}

// basicVar reports whether a package-level variable holds a bool, number
// or string, not an error, pool or table: by its type, or by its value (a
// literal, true or false, an operation on a literal, or a call of a
// function literal returning a basic type).
func basicVar(s *ast.ValueSpec) bool {
	if s.Type != nil {
		return basicType(s.Type)
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
		case *ast.CallExpr:
			fl, ok := x.Fun.(*ast.FuncLit)
			if !ok {
				return false
			}
			res := fl.Type.Results
			return res != nil && len(res.List) == 1 && len(res.List[0].Names) <= 1 && basicType(res.List[0].Type)
		}
	}
	return false
}

// basicType reports whether e names a boolean, numeric or string type.
func basicType(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	switch id.Name {
	case "bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
		"uintptr", "float32", "float64", "byte", "rune":
		return true
	}
	return false
}

// switches returns the package-level variables of basic type that are
// exported or assigned (=, op=, ++, --) outside their declaration, in any
// file of their folder, test files included.
func switches(fset *token.FileSet, files []string, parsed map[string]*ast.File) []problem {
	type key struct{ dir, pkg, name string }
	decl := map[key]*ast.Ident{}
	var order []key
	for _, f := range files {
		af := parsed[f]
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		for _, d := range af.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, spec := range g.Specs {
					if s := spec.(*ast.ValueSpec); basicVar(s) {
						for _, n := range s.Names {
							if n.Name != "_" {
								k := key{filepath.Dir(f), af.Name.Name, n.Name}
								decl[k] = n
								order = append(order, k)
							}
						}
					}
				}
			}
		}
	}
	assigned := map[key]string{}
	for _, f := range files {
		af := parsed[f]
		dir, pkg := filepath.Dir(f), af.Name.Name
		mark := func(e ast.Expr) {
			id, ok := e.(*ast.Ident)
			if !ok {
				return
			}
			k := key{dir, pkg, id.Name}
			n := decl[k]
			// An identifier resolved in its file to something other than the
			// package-level variable is a local of the same name.
			if n == nil || id.Obj != nil && id.Obj.Decl != n.Obj.Decl {
				return
			}
			if _, seen := assigned[k]; !seen {
				assigned[k] = fset.Position(id.Pos()).String()
			}
		}
		ast.Inspect(af, func(x ast.Node) bool {
			switch s := x.(type) {
			case *ast.AssignStmt:
				if s.Tok != token.DEFINE {
					for _, l := range s.Lhs {
						mark(l)
					}
				}
			case *ast.IncDecStmt:
				mark(s.X)
			}
			return true
		})
	}
	var probs []problem
	for _, k := range order {
		n := decl[k]
		pos := fset.Position(n.Pos()).String()
		switch {
		case n.IsExported():
			probs = append(probs, problem{pos, fmt.Sprintf("var %s is a switch (exported, of basic type): make it a constant, or pass it to what it chooses", k.name)})
		case assigned[k] != "":
			probs = append(probs, problem{pos, fmt.Sprintf("var %s is a switch (assigned at %s): make it a constant, or pass it to what it chooses", k.name, assigned[k])})
		}
	}
	return probs
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
