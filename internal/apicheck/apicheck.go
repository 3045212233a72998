// Package apicheck freezes the library's public surface: API lists every
// exported declaration of the importable packages, one line each, and the
// test compares it with the golden file testdata/api.txt, so a change to
// the surface is a visible, deliberate diff. After a deliberate change:
//
//	go test ./internal/apicheck -update
package apicheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// API returns the exported declarations of the non-main packages below the
// module root at dir (internal, bench, cmd, testdata and examples excluded),
// as built with the given build tags, one sorted line each:
// "import/path: declaration".
func API(dir, module string, tags []string) ([]string, error) {
	ctx := build.Default
	ctx.BuildTags = tags
	ctx.CgoEnabled = true
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		first := strings.SplitN(rel, "/", 2)[0]
		switch {
		case rel == ".":
		case strings.HasPrefix(d.Name(), "."), strings.HasPrefix(d.Name(), "_"),
			first == "internal", first == "bench", first == "cmd", first == "examples",
			d.Name() == "testdata", d.Name() == "internal":
			return filepath.SkipDir
		}
		pkg, err := ctx.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		if pkg.Name == "main" {
			return nil
		}
		imp := module
		if rel != "." {
			imp += "/" + rel
		}
		decls, err := exported(path, pkg.GoFiles)
		if err != nil {
			return err
		}
		for _, l := range decls {
			lines = append(lines, imp+": "+l)
		}
		return nil
	})
	sort.Strings(lines)
	return lines, err
}

// exported returns the exported declarations of the files in dir.
func exported(dir string, files []string) ([]string, error) {
	fset := token.NewFileSet()
	var out []string
	print := func(node any) string {
		var b bytes.Buffer
		if err := (&printer.Config{Mode: printer.RawFormat}).Fprint(&b, fset, node); err != nil {
			return fmt.Sprintf("<%v>", err)
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !ast.IsExported(recvName(d.Recv.List[0].Type))) {
					continue
				}
				d.Body, d.Doc = nil, nil
				out = append(out, print(d))
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						s.Doc, s.Comment = nil, nil
						hideUnexported(s.Type)
						out = append(out, "type "+print(s))
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							line := d.Tok.String() + " " + n.Name
							if s.Type != nil {
								line += " " + print(s.Type)
							}
							out = append(out, line)
						}
					}
				}
			}
		}
	}
	return out, nil
}

// hideUnexported drops the unexported fields of a struct type and the
// unexported methods of an interface type, at any depth.
func hideUnexported(e ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		var fl *ast.FieldList
		switch t := n.(type) {
		case *ast.StructType:
			fl = t.Fields
		case *ast.InterfaceType:
			fl = t.Methods
		default:
			return true
		}
		kept := fl.List[:0]
		for _, f := range fl.List {
			f.Doc, f.Comment, f.Tag = nil, nil, nil
			if len(f.Names) == 0 { // embedded
				kept = append(kept, f)
				continue
			}
			names := f.Names[:0]
			for _, n := range f.Names {
				if n.IsExported() {
					names = append(names, n)
				}
			}
			if len(names) > 0 {
				f.Names = names
				kept = append(kept, f)
			}
		}
		fl.List = kept
		return true
	})
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}
