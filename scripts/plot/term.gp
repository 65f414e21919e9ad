# term: switch to the terminal of format fmt ("png" or "svg") and open out.fmt. Loaded
# inside each script's "do for [fmt in formats]" loop. Both are slide size, 1600x900, and
# lay out alike. report.html shows the PNG scaled to its column, 750 px wide in an 800 px
# window: pngcairo draws a point as 4/3 px, so 18 pt is 24 px here and 11.25 px there
# (tests/integration/html.sh reads the size and font from this file and checks that). No
# script may set a smaller font. The SVG's font size is in px: 24 px is the PNG's 18 pt.
if (fmt eq "png") {
	set terminal pngcairo size 1600,900 enhanced font 'DejaVu Sans,18' linewidth 2 noenhanced
} else {
	set terminal svg size 1600,900 dynamic enhanced font 'DejaVu Sans,24' linewidth 2 noenhanced background "white"
}
set output out . "." . fmt
