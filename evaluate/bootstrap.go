package evaluate

import (
	"math"
	"math/rand/v2"
	"slices"
)

// bootstrap returns the gains of every pool over each reference pool in
// refs, with their paired bootstrap intervals (see [Gain]): out[r][k][s]
// is pool k's gain over pool refs[r] by score s. rows has one row per
// question, nScores values per pool. Every resample draws its questions
// once, for all pools, scores and references, so that the comparisons are
// paired and the draws depend only on the number of questions, resamples
// and seed.
func bootstrap(rows [][]float64, refs []int, resamples int, seed uint64) [][][nScores]*Gain {
	n, width := len(rows), len(rows[0])
	pools := width / nScores
	full := make([]float64, width)
	for _, r := range rows {
		for j, v := range r {
			full[j] += v
		}
	}
	// dist[r][j]: the gains over refs[r] of column j, one per resample.
	dist := make([][][]float64, len(refs))
	for r := range refs {
		dist[r] = make([][]float64, width)
		for j := range width {
			dist[r][j] = make([]float64, 0, resamples)
		}
	}
	rng := rand.New(rand.NewPCG(seed, SeedStream))
	sums := make([]float64, width)
	for range resamples {
		clear(sums)
		for range n {
			for j, v := range rows[rng.IntN(n)] {
				sums[j] += v
			}
		}
		for r, ref := range refs {
			for j := range width {
				if g, ok := gain(sums[j], sums[ref*nScores+j%nScores], j%nScores); ok {
					dist[r][j] = append(dist[r][j], g)
				}
			}
		}
	}
	out := make([][][nScores]*Gain, len(refs))
	for r, ref := range refs {
		out[r] = make([][nScores]*Gain, pools)
		for j := range width {
			k, s := j/nScores, j%nScores
			g, ok := gain(full[j], full[ref*nScores+s], s)
			if !ok {
				continue
			}
			lo, hi := percentile(dist[r][j], g)
			out[r][k][s] = &Gain{Percent: g, Low: lo, High: hi}
		}
	}
	return out
}

// gain is the gain in percent of a sum of scores over the reference's
// sum over the same questions (the ratio of the means), the sign of score
// s making positive better; false when the reference's sum is 0.
func gain(sum, ref float64, s int) (float64, bool) {
	if ref == 0 {
		return 0, false
	}
	return sign[s] * (sum - ref) / math.Abs(ref) * 100, true
}

// percentile returns the 95% percentile interval of the gains d (sorted
// in place): the ⌊0.025·B⌋-th smallest and largest, counting from 0.
// With no gains it returns the point estimate g twice.
func percentile(d []float64, g float64) (lo, hi float64) {
	if len(d) == 0 {
		return g, g
	}
	slices.Sort(d)
	k := int(math.Floor(0.025 * float64(len(d))))
	return d[k], d[len(d)-1-k]
}
