// Command cvrank reads the tables of bench/defaults (bench/studies/defaults/*.md)
// and shows which grid points change rank when points are compared only at
// equal training length, as eval.CrossValidateWith's fair halving does.
//
// Each cell of such a table is a point's mean validation accuracy on one
// data set; a cell marked * was scored at fewer iterations, when successive
// halving dropped the point. For every table and data set cvrank prints:
// the points as given and the distinct ones (rows equal on every data set
// that differ only in a prediction option, as w under lc=1, are one); the
// order the scores give when read side by side (mixed) and the fair order
// (points of the last round first, by score; then the cut ones, which were
// not compared with them at equal length); and the points whose rank
// differs, with the last-round points they outscored at fewer iterations.
// The last round is full length under the fair rule; the halving it
// replaces stopped when one candidate was left, which for the default
// grids' 8 training candidates is at a third of the iterations.
//
// With -old and -new, two tables of the same grid and data (one run under
// the old halving, one under the fair rule) are compared point by point:
// score, cut (*) or not, fair rank in each, and the choice.
//
// Usage:
//
//	go run ./bench/cvrank [files]          (default bench/studies/defaults/*.md)
//	go run ./bench/cvrank -old A.md -new B.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cell is one point's score on one data set.
type cell struct {
	acc  float64
	cut  bool // marked *: scored at fewer iterations
	none bool // no score (failed or over budget)
}

// table is one method's section of a study.
type table struct {
	file, method string
	sets         []string
	points       []string
	cells        [][]cell // by point, by data set
	chosen       int      // the row marked chosen, or -1
}

func main() {
	log.SetFlags(0)
	oldF := flag.String("old", "", "table of a run under the old halving")
	newF := flag.String("new", "", "table of the same run under the fair rule")
	flag.Parse()
	if *oldF != "" || *newF != "" {
		if err := compare(*oldF, *newF); err != nil {
			log.Fatal(err)
		}
		return
	}
	files := flag.Args()
	if len(files) == 0 {
		files, _ = filepath.Glob("bench/studies/defaults/defaults*.md")
	}
	total, changed := 0, 0
	for _, f := range files {
		ts, err := parse(f)
		if err != nil {
			log.Fatal(err)
		}
		for _, t := range ts {
			n, c := report(t)
			total, changed = total+n, changed+c
			if n > 0 {
				overSets(t)
			}
		}
	}
	fmt.Printf("\n%d (table, data set) pairs with points cut by halving; %d with a point that changes rank\n", total, changed)
}

// parse reads the method sections of a bench/defaults file.
func parse(path string) ([]*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*table
	var t *table
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "):
			t = &table{file: filepath.Base(path), method: strings.TrimPrefix(l, "## "), chosen: -1}
			out = append(out, t)
		case t == nil || !strings.HasPrefix(l, "| "):
		case strings.HasPrefix(l, "| point |"):
			f := fields(l)
			t.sets = f[1 : len(f)-1]
		case t.sets != nil:
			f := fields(l)
			if len(f) != len(t.sets)+2 {
				return nil, fmt.Errorf("%s: row %q has %d cells for %d data sets", path, l, len(f)-2, len(t.sets))
			}
			name := f[0]
			if strings.HasSuffix(name, "**chosen**") {
				name = strings.TrimSpace(strings.TrimSuffix(name, "**chosen**"))
				t.chosen = len(t.points)
			}
			var row []cell
			for _, s := range f[1 : len(f)-1] {
				row = append(row, parseCell(s))
			}
			t.points, t.cells = append(t.points, name), append(t.cells, row)
		}
	}
	return out, sc.Err()
}

// fields splits a markdown table row into its trimmed cells.
func fields(l string) []string {
	f := strings.Split(strings.Trim(l, "|"), "|")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f
}

// parseCell reads "97.36", "89.90*" or "12.50 (k=4)*"; anything else has
// no score.
func parseCell(s string) cell {
	c := cell{cut: strings.HasSuffix(s, "*")}
	s = strings.TrimSuffix(s, "*")
	if i := strings.Index(s, " ("); i >= 0 {
		s = s[:i]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return cell{none: true}
	}
	c.acc = v
	return c
}

// distinct returns, by row, the index of the first row it merges with:
// rows equal on every data set whose options differ only in w or lc.
func distinct(t *table) []int {
	same := make([]int, len(t.points))
	for i := range t.points {
		same[i] = i
		for j := range i {
			if same[j] == j && slices.Equal(t.cells[i], t.cells[j]) && onlyPredict(t.points[i], t.points[j]) {
				same[i] = j
				break
			}
		}
	}
	return same
}

// onlyPredict reports whether the points a and b ("n=v,n=v") differ only
// in the prediction options w and lc.
func onlyPredict(a, b string) bool {
	strip := func(p string) string {
		var keep []string
		for _, kv := range strings.Split(p, ",") {
			if !strings.HasPrefix(kv, "w=") && !strings.HasPrefix(kv, "lc=") {
				keep = append(keep, kv)
			}
		}
		return strings.Join(keep, ",")
	}
	return strip(a) == strip(b)
}

// fairOrder returns the rows of data set d with a score, distinct ones
// only: those of the last round by score, then the cut ones by score.
// With mixed, last-round and cut ones are sorted together by score.
func fairOrder(t *table, d int, same []int, mixed bool) []int {
	var rows []int
	for i := range t.points {
		if same[i] == i && !t.cells[i][d].none {
			rows = append(rows, i)
		}
	}
	slices.SortStableFunc(rows, func(a, b int) int {
		ca, cb := t.cells[a][d], t.cells[b][d]
		if !mixed && ca.cut != cb.cut {
			if ca.cut {
				return 1
			}
			return -1
		}
		switch {
		case ca.acc > cb.acc:
			return -1
		case ca.acc < cb.acc:
			return 1
		}
		return 0
	})
	return rows
}

// report prints the rank changes of t, data set by data set, and returns
// the number of data sets with cut points and with a rank change.
func report(t *table) (withCut, changed int) {
	same := distinct(t)
	nd := 0
	for i := range same {
		if same[i] == i {
			nd++
		}
	}
	for d, set := range t.sets {
		mixed, fair := fairOrder(t, d, same, true), fairOrder(t, d, same, false)
		cut := 0
		for _, i := range fair {
			if t.cells[i][d].cut {
				cut++
			}
		}
		if cut == 0 {
			continue
		}
		withCut++
		rank := map[int]int{}
		for r, i := range mixed {
			rank[i] = r + 1
		}
		var lines []string
		for r, i := range fair {
			if rank[i] == r+1 || !t.cells[i][d].cut {
				continue
			}
			// A cut point read above a last-round one: name those it outscored.
			var above []string
			for _, j := range fair {
				if !t.cells[j][d].cut && t.cells[j][d].acc < t.cells[i][d].acc {
					above = append(above, fmt.Sprintf("%s (%.2f)", t.points[j], t.cells[j][d].acc))
				}
			}
			lines = append(lines, fmt.Sprintf("| %s | %.2f* | %d | %d | %s |", t.points[i], t.cells[i][d].acc, rank[i], r+1, strings.Join(above, "; ")))
		}
		fmt.Printf("\n### %s, %s, %s\n\n%d grid points, %d distinct (rows equal on every data set that differ only in w or lc merged); %d scored in the last round, %d cut.\n",
			t.file, t.method, set, len(t.points), nd, len(fair)-cut, cut)
		if len(lines) == 0 {
			fmt.Println("\nNo rank changes: every cut point scored below every point of the last round.")
			continue
		}
		changed++
		fmt.Printf("\nCut points read above last-round ones (ranks among the %d distinct):\n\n| point | score | mixed rank | fair rank | last-round points it outscored at fewer iterations |\n|---|---:|---:|---:|---|\n", nd)
		fmt.Println(strings.Join(lines, "\n"))
	}
	return withCut, changed
}

// overSets prints the table's chosen point (best mean over the data sets)
// and the data sets it was cut on, and the best mean among the points of
// the last round on every data set, the only means comparable.
func overSets(t *table) {
	mean := func(i int) float64 {
		m := 0.0
		for _, c := range t.cells[i] {
			m += c.acc / float64(len(t.sets))
		}
		return m
	}
	fair := -1
	for i, row := range t.cells {
		full := true
		for _, c := range row {
			full = full && !c.cut && !c.none
		}
		if full && (fair < 0 || mean(i) > mean(fair)) {
			fair = i
		}
	}
	fmt.Printf("\n#### %s, %s: over the data sets\n\n", t.file, t.method)
	if t.chosen >= 0 {
		var cutOn []string
		for d, c := range t.cells[t.chosen] {
			if c.cut {
				cutOn = append(cutOn, t.sets[d])
			}
		}
		note := "in the last round on every data set"
		if len(cutOn) > 0 {
			note = "cut on " + strings.Join(cutOn, ", ") + ": its mean mixes iterations"
		}
		fmt.Printf("The study chose %s (mean %.2f), %s.\n", t.points[t.chosen], mean(t.chosen), note)
	}
	if fair < 0 {
		fmt.Println("No point reached the last round on every data set: the table cannot choose fairly.")
	} else {
		fmt.Printf("Best mean among points of the last round on every data set: %s (%.2f).\n", t.points[fair], mean(fair))
	}
}
