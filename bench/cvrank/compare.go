package main

import (
	"fmt"
	"strings"
)

// compare prints, for every method and data set of the tables in the
// files oldF and newF (same grid, same data), the points whose fair rank
// differs between them, with their scores and whether they were cut, and
// the point each table chose.
func compare(oldF, newF string) error {
	if oldF == "" || newF == "" {
		return fmt.Errorf("give both -old and -new")
	}
	olds, err := parse(oldF)
	if err != nil {
		return err
	}
	news, err := parse(newF)
	if err != nil {
		return err
	}
	for _, o := range olds {
		var n *table
		for _, t := range news {
			if t.method == o.method {
				n = t
			}
		}
		if n == nil || strings.Join(n.points, " ") != strings.Join(o.points, " ") || strings.Join(n.sets, " ") != strings.Join(o.sets, " ") {
			return fmt.Errorf("%s: the tables differ in grid or data sets", o.method)
		}
		same := distinct(n)
		for d, set := range o.sets {
			ro, rn := ranks(o, d, same), ranks(n, d, same)
			fmt.Printf("\n### %s, %s\n\nold choice: %s; fair choice: %s.\n\n", o.method, set, best(o, d, same), best(n, d, same))
			fmt.Println("| point | old score | fair score | old rank | fair rank |\n|---|---:|---:|---:|---:|")
			for i, p := range o.points {
				if same[i] != i {
					continue
				}
				mark := ""
				if ro[i] != rn[i] {
					mark = " **moved**"
				}
				fmt.Printf("| %s%s | %s | %s | %d | %d |\n", p, mark, cellText(o.cells[i][d]), cellText(n.cells[i][d]), ro[i], rn[i])
			}
		}
	}
	return nil
}

// ranks returns the fair rank (from 1) of every distinct row of data set d.
func ranks(t *table, d int, same []int) map[int]int {
	r := map[int]int{}
	for k, i := range fairOrder(t, d, same, false) {
		r[i] = k + 1
	}
	return r
}

// best names the first row of the fair order of data set d.
func best(t *table, d int, same []int) string {
	o := fairOrder(t, d, same, false)
	if len(o) == 0 {
		return "none"
	}
	return fmt.Sprintf("%s (%s)", t.points[o[0]], cellText(t.cells[o[0]][d]))
}

func cellText(c cell) string {
	switch {
	case c.none:
		return "–"
	case c.cut:
		return fmt.Sprintf("%.2f*", c.acc)
	}
	return fmt.Sprintf("%.2f", c.acc)
}
