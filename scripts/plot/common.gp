# common: terminal and style settings shared by every gpufeed plot. Loaded by the other
# scripts; gpufeed passes the variables named in each script's header with gnuplot -e.
#
# Slide size: 1600x900 (16:9) with fonts large enough to read on a projector. Titles and
# labels that hold paths are printed "noenhanced" so that _ and ^ stay literal.
if (!exists("formats")) formats = "png svg"
if (!exists("title")) title = "gpufeed"
png_term = "set terminal pngcairo size 1600,900 enhanced font 'DejaVu Sans,17' linewidth 2 noenhanced"
svg_term = "set terminal svg size 1600,900 dynamic enhanced font 'DejaVu Sans,17' linewidth 2 noenhanced"

# term(fmt): switch to the terminal for fmt and open out.fmt.
term_cmd(fmt) = (fmt eq "png" ? png_term : svg_term) . "; set output '" . out . "." . fmt . "'"

set datafile separator comma
set datafile columnheaders
set grid xtics ytics lc rgb "#d0d0d0" lw 1 dt 1
set border 3 lc rgb "#404040"
set tics nomirror out
set key noenhanced

# Colours (colour-blind safe, Okabe-Ito).
c_blue = "#0072B2"; c_orange = "#E69F00"; c_green = "#009E73"; c_red = "#D55E00"
c_purple = "#CC79A7"; c_sky = "#56B4E9"; c_grey = "#7f7f7f"; c_yellow = "#F0E442"
