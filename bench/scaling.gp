# SPDX-License-Identifier: GPL-2.0
#
# bench/scaling.gp: the scaling chart of bench/report. Called with dir
# (KERNEL_SERIES.dat files: a title line, then "x ratio" lines) and png
# (output) set.
set terminal pngcairo size 1200,500 font ",10"
set output png
set multiplot layout 1,2 title "Scaling: accesses per second as a ratio to no watcher, same boot"
set grid
set key bottom left
set yrange [0:*]
set ylabel "ratio"

groups = system("ls " . dir . "/*.dat | grep -v marks")
marks = system("ls " . dir . "/*.dat | grep marks")

set title "K permission groups answering allow"
set xlabel "groups"
set logscale x 2
set xrange [1:16]
if (strlen(groups) > 0) {
	plot for [f in groups] f using 1:2 with linespoints title columnheader(2)
}

set title "one group holding N inode marks, one marked file opened"
set xlabel "inode marks"
set logscale x 10
set xrange [10:100000]
if (strlen(marks) > 0) {
	plot for [f in marks] f using 1:2 with linespoints title columnheader(2)
}
unset multiplot
