# common: what every gpufeed plot shares. Each script gets its strings as arguments
# (gnuplot -c SCRIPT ARG1 ...), never as code, and starts with
#     script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
#     load script_dir . "/common.gp"
# ARG1 the folder of the scripts, ARG2 the data file, ARG3 the output path without its
# extension, ARG4 the title, ARG5 the formats ("png svg"); ARG6..ARG9 per script. (A
# loaded file does not see ARG1.., hence the copies.) Numbers come as variables
# (gnuplot -e "name=1.0e+00;").
#
# Slide size: 1600x900 (16:9) with fonts large enough to read on a projector. Text that
# holds paths or names is printed "noenhanced" so that _ and ^ stay literal.
# A script that passes no formats draws both.
if (!exists("formats")) formats = "png svg"

set datafile separator comma
set datafile columnheaders
set grid xtics ytics lc rgb "#d0d0d0" lw 1 dt 1
set border 3 lc rgb "#404040"
set tics nomirror out
set key noenhanced

# Colours (colour-blind safe, Okabe-Ito).
c_blue = "#0072B2"; c_orange = "#E69F00"; c_green = "#009E73"; c_red = "#D55E00"
c_purple = "#CC79A7"; c_sky = "#56B4E9"; c_grey = "#7f7f7f"; c_yellow = "#F0E442"

# A y tick step for a panel whose data reach top (> 0): 1, 2 or 5 x 10^k giving at most
# about 5 ticks, so that a short panel's labels never run into each other.
tick_step(top) = top <= 0 ? 1 : (_x = top / 4.0, _e = 10**floor(log10(_x)), _f = _x / _e, \
	(_f <= 1 ? 1 : _f <= 2 ? 2 : _f <= 5 ? 5 : 10) * _e)
