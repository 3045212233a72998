package report

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/lrsdl/lrsdl/core"
)

// AtomGrid draws dictionary atoms as an image: every column of D and D0
// is an h×w tile in column-major pixel order (pixel (r, c) is entry c·h + r),
// scaled from its minimum (black) to its maximum (white). The atoms of class
// c (columns part.Block(c) of D) form row c; the shared atoms D0, if any,
// form a last row set apart by a blank row. Tiles are separated by 1 pixel.
func AtomGrid(D *mat.Dense, part core.Partition, D0 *mat.Dense, h, w int) (*image.Gray, error) {
	if D == nil || len(part) < 2 {
		return nil, fmt.Errorf("report: atom grid: no class atoms")
	}
	d, k := D.Dims()
	if d != h*w {
		return nil, fmt.Errorf("report: atom grid: atoms of dimension %d are not %d×%d images", d, h, w)
	}
	if part.Len() != k {
		return nil, fmt.Errorf("report: atom grid: partition covers %d atoms, D has %d", part.Len(), k)
	}
	cols, rows := 1, part.Blocks()
	for c := range part.Blocks() {
		cols = max(cols, part.Size(c))
	}
	k0 := 0
	if D0 != nil {
		var d0 int
		if d0, k0 = D0.Dims(); d0 != d && k0 > 0 {
			return nil, fmt.Errorf("report: atom grid: shared atoms have dimension %d, class atoms %d", d0, d)
		}
		if k0 > 0 {
			cols = max(cols, k0)
			rows += 2
		}
	}
	img := image.NewGray(image.Rect(0, 0, cols*(w+1)+1, rows*(h+1)+1))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	tile := func(m *mat.Dense, j, row, col int) {
		a := mat.Col(nil, j, m)
		lo, hi := a[0], a[0]
		for _, v := range a {
			lo, hi = min(lo, v), max(hi, v)
		}
		x0, y0 := 1+col*(w+1), 1+row*(h+1)
		for c := range w {
			for r := range h {
				g := uint8(128)
				if hi > lo {
					g = uint8(255*(a[c*h+r]-lo)/(hi-lo) + 0.5)
				}
				img.SetGray(x0+c, y0+r, color.Gray{Y: g})
			}
		}
	}
	for c := range part.Blocks() {
		lo, hi := part.Block(c)
		for j := lo; j < hi; j++ {
			tile(D, j, c, j-lo)
		}
	}
	for j := range k0 {
		tile(D0, j, rows-1, j)
	}
	return img, nil
}

// ImagePlot returns a plot showing img under a title, without axes.
func ImagePlot(title string, img image.Image) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	b := img.Bounds()
	p.Add(plotter.NewImage(img, 0, 0, float64(b.Dx()), float64(b.Dy())))
	p.HideAxes()
	return p
}

// Series is one curve of a line plot. Err, if not nil, holds the
// half-height of an error bar at every point (e.g. the standard deviation
// of accuracy over splits).
type Series struct {
	Name string
	X, Y []float64
	Err  []float64
	// Color, if positive, picks the series' colour (plotutil.Color(Color-1))
	// instead of its position; Dashed draws its line dashed, without points.
	Color  int
	Dashed bool
}

// Lines returns a plot of the series as lines with points and error bars.
func Lines(title, xLabel, yLabel string, series ...Series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	p.Add(plotter.NewGrid())
	for i, s := range series {
		if len(s.X) != len(s.Y) || s.Err != nil && len(s.Err) != len(s.Y) {
			return nil, fmt.Errorf("report: series %q has %d x, %d y and %d error values", s.Name, len(s.X), len(s.Y), len(s.Err))
		}
		xy := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xy[j].X, xy[j].Y = s.X[j], s.Y[j]
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("report: series %q: %v", s.Name, err)
		}
		ci := i
		if s.Color > 0 {
			ci = s.Color - 1
		}
		l.Color, pts.Color = plotutil.Color(ci), plotutil.Color(ci)
		pts.Shape = plotutil.Shape(ci)
		if s.Dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(l)
			p.Legend.Add(s.Name, l)
		} else {
			p.Add(l, pts)
			p.Legend.Add(s.Name, l, pts)
		}
		if s.Err != nil {
			e := make(errPoints, len(xy))
			for j := range xy {
				e[j] = errPoint{xy[j], s.Err[j]}
			}
			bars, err := plotter.NewYErrorBars(e)
			if err != nil {
				return nil, fmt.Errorf("report: series %q: %v", s.Name, err)
			}
			bars.Color = plotutil.Color(i)
			p.Add(bars)
		}
	}
	p.Legend.Top = true
	p.X.Tick.Marker = distinctTicks{plot.DefaultTicks{}}
	p.Y.Tick.Marker = distinctTicks{plot.DefaultTicks{}}
	return p, nil
}

// distinctTicks labels the major ticks of its Ticker with the fewest
// significant digits that tell them apart, so that a narrow range such as
// costs from 12.878 to 12.9 is not labelled "12.9" at every tick.
type distinctTicks struct{ plot.Ticker }

func (d distinctTicks) Ticks(min, max float64) []plot.Tick {
	ts := d.Ticker.Ticks(min, max)
	for prec := 1; prec <= 17; prec++ {
		seen := map[string]bool{}
		ok := true
		for _, t := range ts {
			if t.Label == "" {
				continue
			}
			l := strconv.FormatFloat(t.Value, 'g', prec, 64)
			ok = ok && !seen[l]
			seen[l] = true
		}
		if ok {
			for i := range ts {
				if ts[i].Label != "" {
					ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', prec, 64)
				}
			}
			break
		}
	}
	return ts
}

// Render draws plots in a grid of rows (nil entries stay blank) on a
// width×height-pixel image.
func Render(plots [][]*plot.Plot, width, height int) (image.Image, error) {
	if len(plots) == 0 || len(plots[0]) == 0 {
		return nil, fmt.Errorf("report: nothing to draw")
	}
	if width <= 0 || height <= 0 {
		return nil, fmt.Errorf("report: image size %d×%d", width, height)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	c := vgimg.NewWith(vgimg.UseImage(img))
	t := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Millimeter, PadY: vg.Millimeter,
		PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
	cs := plot.Align(plots, t, draw.New(c))
	for i, row := range plots {
		for j, p := range row {
			if p != nil {
				p.Draw(cs[i][j])
			}
		}
	}
	return c.Image(), nil
}

// SavePNG renders plots as Render does and writes the PNG file path.
func SavePNG(path string, plots [][]*plot.Plot, width, height int) error {
	img, err := Render(plots, width, height)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	return f.Close()
}

type errPoint struct {
	plotter.XY
	err float64
}

// errPoints implement plotter.XYer and plotter.YErrorer.
type errPoints []errPoint

func (e errPoints) Len() int                    { return len(e) }
func (e errPoints) XY(i int) (float64, float64) { return e[i].X, e[i].Y }
func (e errPoints) YError(i int) (float64, float64) {
	return e[i].err, e[i].err
}
