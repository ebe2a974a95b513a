package capacity_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
)

// Bad inputs to the estimates and the cost model are typed errors naming
// the field, not NaN, negative or panicking figures.

func TestMonthlyRefusesBadInput(t *testing.T) {
	good := capacity.Profile{Traffic: []capacity.Traffic{{Name: "R", PerSecond: 1, Units: capacity.Units{Read: 1}}}}
	_, err := capacity.Published.Monthly(good)
	require.NoError(t, err)

	nan := math.NaN()
	prices := func(f func(*capacity.Prices)) capacity.Prices {
		p := capacity.Published
		p.Reserved = append([]capacity.Reservation(nil), p.Reserved...)
		f(&p)
		return p
	}
	for field, p := range map[string]capacity.Prices{
		"OnDemandRead":           prices(func(p *capacity.Prices) { p.OnDemandRead = nan }),
		"OnDemandWrite":          prices(func(p *capacity.Prices) { p.OnDemandWrite = -1 }),
		"ProvisionedWrite":       prices(func(p *capacity.Prices) { p.ProvisionedWrite = math.Inf(1) }),
		"StorageGBMonth":         prices(func(p *capacity.Prices) { p.StorageGBMonth = -0.25 }),
		"HoursPerMonth":          prices(func(p *capacity.Prices) { p.HoursPerMonth = nan }),
		"Reserved[1].HourlyRead": prices(func(p *capacity.Prices) { p.Reserved[1].HourlyRead = -1 }),
	} {
		_, err := p.Monthly(good)
		require.ErrorIs(t, err, st.ErrInvalidInput, field)
		assert.Contains(t, err.Error(), field)
	}
	profile := func(f func(*capacity.Profile)) capacity.Profile {
		p := good
		p.Traffic = append([]capacity.Traffic(nil), good.Traffic...)
		f(&p)
		return p
	}
	for field, prof := range map[string]capacity.Profile{
		"PerSecond":     profile(func(p *capacity.Profile) { p.Traffic[0].PerSecond = -1 }),
		"Units.Read":    profile(func(p *capacity.Profile) { p.Traffic[0].Units.Read = nan }),
		"PeakToAverage": profile(func(p *capacity.Profile) { p.PeakToAverage = 0.5 }),
		"Utilization":   profile(func(p *capacity.Profile) { p.Utilization = nan }),
		"ItemBytes":     profile(func(p *capacity.Profile) { p.ItemBytes = -1 }),
	} {
		_, err := capacity.Published.Monthly(prof)
		require.ErrorIs(t, err, st.ErrInvalidInput, field)
		assert.Contains(t, err.Error(), field)
	}
	_, err = capacity.Published.Monthly(profile(func(p *capacity.Profile) { p.PeakToAverage = nan }))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = capacity.Published.Monthly(profile(func(p *capacity.Profile) { p.Utilization = 1.5 }))
	require.ErrorIs(t, err, st.ErrInvalidInput)
}

func TestReadOfAndPageOfRefuseBadInput(t *testing.T) {
	m := newModel(t)
	for field, page := range map[string]capacity.Page{
		"Items":      {Items: -1, ItemBytes: 100},
		"ItemBytes":  {Items: 1, ItemBytes: -100},
		"EntryBytes": {Items: 1, ItemBytes: 100, EntryBytes: -1},
	} {
		_, err := capacity.ReadOf(m.ByOwner, page)
		require.ErrorIs(t, err, st.ErrInvalidInput, field)
		assert.Contains(t, err.Error(), field)
	}
	d := Doc{Owner: "o", ID: "1"}
	_, err := capacity.PageOf(m.ByOwner, m.Docs, d, -1, false)
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "n is -1")
	_, err = capacity.PageOf(nil, m.Docs, d, 1, false)
	require.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = capacity.PageOf(m.ByOwner, nil, d, 1, false)
	require.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = capacity.ReadOf((*st.Pattern[Doc])(nil), capacity.Page{Items: 1})
	require.ErrorIs(t, err, st.ErrInvalidInput)
}

func TestCompareRefusesBadTolerance(t *testing.T) {
	for _, tol := range []float64{math.NaN(), -1, math.Inf(1)} {
		_, err := capacity.Compare(nil, nil, tol)
		require.ErrorIs(t, err, st.ErrInvalidInput)
		assert.Contains(t, err.Error(), "tolerance")
	}
}
