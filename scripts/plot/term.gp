# term: switch to the terminal of format fmt ("png" or "svg") and open out.fmt. Loaded
# inside each script's "do for [fmt in formats]" loop. The PNG is slide size (1600x900);
# the SVG, which report.html inlines at the page's width (750 to 1050 px), is drawn on a
# smaller canvas so that its text stays readable there (about 11 px at 800 px wide).
if (fmt eq "png") {
	set terminal pngcairo size 1600,900 enhanced font 'DejaVu Sans,17' linewidth 2 noenhanced
} else {
	set terminal svg size 1000,720 dynamic enhanced font 'DejaVu Sans,16' linewidth 2 noenhanced background "white"
}
set output out . "." . fmt
