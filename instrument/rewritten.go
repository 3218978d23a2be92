package instrument

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// RewrittenLine returns the text of the rewritten code that stands for
// line of the original file (from the rewritten files' //line directives),
// for a report of a build error in rewritten code: what the rewrite made of
// the line the compiler complains about.
func (p *Plan) RewrittenLine(file string, line int) (string, bool) {
	if p == nil || p.Overlay == "" {
		return "", false
	}
	b, err := os.ReadFile(p.Overlay)
	if err != nil {
		return "", false
	}
	var ov struct{ Replace map[string]string }
	if json.Unmarshal(b, &ov) != nil {
		return "", false
	}
	var dst string
	for orig, rw := range ov.Replace {
		if orig == file || strings.HasSuffix(orig, string(filepath.Separator)+file) || filepath.Base(orig) == filepath.Base(file) && strings.HasSuffix(filepath.ToSlash(orig), filepath.ToSlash(file)) {
			dst = rw
			break
		}
	}
	if dst == "" {
		return "", false
	}
	f, err := os.Open(dst)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	cur := 0 // the original line of the line being read, once a directive set it
	var out []string
	for sc.Scan() {
		text := sc.Text()
		if m := lineDirective.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
			n, _ := strconv.Atoi(m[1])
			cur = n
			continue
		}
		if m := inlineDirective.FindStringSubmatch(text); m != nil {
			// /*line file:L:C*/: what follows it is at line L.
			n, _ := strconv.Atoi(m[1])
			cur = n
		}
		if cur == line {
			out = append(out, strings.TrimSpace(inlineDirective.ReplaceAllString(text, "")))
		}
		if cur > 0 {
			cur++
		}
	}
	if len(out) == 0 {
		return "", false
	}
	return strings.Join(out, " "), true
}

var (
	lineDirective   = regexp.MustCompile(`^//line .*:(\d+)(?::\d+)?$`)
	inlineDirective = regexp.MustCompile(`/\*line [^*]*:(\d+):\d+\*/`)
)
