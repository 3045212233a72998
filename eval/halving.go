package eval

import "slices"

// minFirstRound is the fewest outer iterations of the first round of
// successive halving for a resumable method.
const minFirstRound = 3

// halvingRounds returns the outer iterations of the rounds of successive
// halving for a method of iters iterations: a probe at half the first
// round, then a ninth, a third and all of them for a resumable method,
// whose survivors continue where they stopped, and a quarter, half and all
// for the others, which retrain every round (and for a resumable one when
// a ninth is under minFirstRound). It returns just {iters} when the first
// round would have fewer than 2 iterations, too few to measure a rise.
func halvingRounds(iters int, resumes bool) []int {
	first, mid := iters/4, iters/2
	if resumes && iters/9 >= minFirstRound {
		first, mid = iters/9, iters/3
	}
	if first < 2 {
		return []int{iters}
	}
	var out []int
	for _, it := range []int{first / 2, first, mid, iters} {
		if len(out) == 0 || it > out[len(out)-1] {
			out = append(out, it)
		}
	}
	return out
}

// project returns the accuracy a point scored before at prev iterations
// and now at it would reach at full iterations if it kept rising as it did
// between them, linearly in iterations, capped at 1; now if it did not
// rise. For a learning curve that rises ever more slowly this bounds its
// score at full from above.
func project(before, now float64, prev, it, full int) float64 {
	if now <= before || it <= prev {
		return now
	}
	return min(1, now+(now-before)/float64(it-prev)*float64(full-it))
}

// survivors returns which candidates of a round of successive halving go
// on, from their best scores now (all at the same iterations) and
// projected to the full length (project): the best third by now (at least
// one; ties by order), and every other whose projection reaches the lowest
// score now of those.
func survivors(now, proj []float64) []bool {
	order := make([]int, len(now))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpDesc(now[a], now[b]) })
	top := order[:(len(order)+2)/3]
	bar := now[top[len(top)-1]]
	keep := make([]bool, len(now))
	for _, i := range top {
		keep[i] = true
	}
	for i, p := range proj {
		keep[i] = keep[i] || p >= bar
	}
	return keep
}

// choose returns the index in scores of the best of the points eligible
// (indices in increasing order): the highest accuracy; ties go to fewer
// atoms (smaller "k"), then the larger sparsity weight ("lambda1", else
// "lambda"), then the first.
func choose(scores []CVScore, eligible []int) int {
	best := -1
	for _, i := range eligible {
		if best < 0 || better(scores[i], scores[best]) {
			best = i
		}
	}
	return best
}

// better reports whether a is chosen over b by the rule of choose.
func better(a, b CVScore) bool {
	if a.Accuracy != b.Accuracy {
		return a.Accuracy > b.Accuracy
	}
	if c := cmpOpt(a.Params, b.Params, "k"); c != 0 {
		return c < 0
	}
	for _, n := range []string{"lambda1", "lambda"} {
		if c := cmpOpt(a.Params, b.Params, n); c != 0 {
			return c > 0
		}
	}
	return false
}

// cmpOpt compares the numeric option n of a and b; 0 if either lacks it.
func cmpOpt(a, b Params, n string) int {
	x, okx := a[n].(float64)
	y, oky := b[n].(float64)
	if !okx || !oky {
		return 0
	}
	return -cmpDesc(x, y)
}

// cmpDesc orders larger values first.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
