package clip

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"runes short", Runes("héllo", 5), "héllo"},
		{"runes cut", Runes("héllo", 2), "hé…"},
		{"runes zero", Runes("abc", 0), "…"},
		{"bytes short", Bytes("abc", 3), "abc"},
		{"bytes on boundary", Bytes("abcdef", 3), "abc…"},
		// "é" is two bytes: a cut inside it moves back before it.
		{"bytes inside a rune", Bytes("aé", 2), "a…"},
		{"within fits", Within("abcdef", 6), "abcdef"},
		{"within cut", Within("abcdefgh", 6), "abc…"},
		{"within inside a rune", Within("abéfgh", 6), "ab…"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if p, cut := Prefix("aé", 2); p != "a" || !cut {
		t.Errorf("Prefix(aé, 2) = %q, %v", p, cut)
	}
	if p, cut := Prefix("ab", 5); p != "ab" || cut {
		t.Errorf("Prefix(ab, 5) = %q, %v", p, cut)
	}
}

func FuzzClip(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 64
		if n < 0 {
			n = -n
		}
		for name, got := range map[string]string{"Bytes": Bytes(s, n), "Within": Within(s, n+len(Ellipsis)), "Runes": Runes(s, n)} {
			if utf8.ValidString(s) && !utf8.ValidString(got) {
				t.Fatalf("%s(%q, %d) = %q: not valid UTF-8", name, s, n, got)
			}
			if got != s && !strings.HasSuffix(got, Ellipsis) {
				t.Fatalf("%s(%q, %d) = %q: cut without a mark", name, s, n, got)
			}
		}
		if w := Within(s, n+len(Ellipsis)); len(w) > n+len(Ellipsis) {
			t.Fatalf("Within(%q, %d) = %d bytes", s, n+len(Ellipsis), len(w))
		}
	})
}

// BytesOf cuts as Bytes does, at every length around a multi-byte rune,
// and copies only what it keeps: quoting a big answer costs its quote,
// not the answer (runtime.MemStats counts every byte allocated, so this
// holds on a loaded machine and under -race alike).
func TestBytesOf(t *testing.T) {
	s := "aé€𝄞b"
	for n := -1; n <= len(s)+1; n++ {
		if got, want := BytesOf([]byte(s), n), Bytes(s, n); got != want {
			t.Errorf("BytesOf(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
	big := []byte(strings.Repeat("x", 1<<20))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if got := BytesOf(big, 4000); len(got) != 4000+len(Ellipsis) {
			t.Fatalf("len = %d", len(got))
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("ten quotes of 4 000 bytes from 1 MiB allocated %d bytes: the whole slice was copied", n)
	}
}
