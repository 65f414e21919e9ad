# term: switch to the terminal of format fmt ("png" or "svg") and open out.fmt. Loaded
# inside each script's "do for [fmt in formats]" loop.
if (fmt eq "png") {
	set terminal pngcairo size 1600,900 enhanced font 'DejaVu Sans,17' linewidth 2 noenhanced
} else {
	set terminal svg size 1600,900 dynamic enhanced font 'DejaVu Sans,17' linewidth 2 noenhanced background "white"
}
set output out . "." . fmt
