/* text: what a results folder says, made safe to print. A string read back from a file
 * (summary.json, a CSV file, a folder's name, report.txt) reaches a terminal through
 * report, compare and table, and a terminal runs what it takes for a control sequence:
 * ESC [ ... (CSI), ESC ] ... BEL (a title, a hyperlink, the clipboard), and the same
 * as C1 codes (U+0080..U+009F, which xterm obeys in UTF-8). Every such byte becomes a
 * space, and a byte that is not UTF-8 a '?', so that no byte of the file can start a
 * sequence; printable text, UTF-8 included, stays as it is. One neutralizer for every
 * reader: the loader cleans every string of summary.json once (results/load.c), and
 * what is printed from elsewhere goes through gf_text_put. */
#ifndef GF_TEXT_H
#define GF_TEXT_H

#include <stdbool.h>
#include <stdio.h>

/* s cleaned in place (its length unchanged); a newline stays when keep_newline.
 * Returns whether anything was replaced. */
bool gf_text_clean(char *s, bool keep_newline);

/* s printed to o as gf_text_clean would leave it (s itself unchanged). */
void gf_text_put(FILE *o, const char *s, bool keep_newline);

struct json_object;
/* Every string of j, keys included, cleaned (a key with a control character is renamed).
 * Returns 0 or -ENOMEM. */
int gf_text_clean_json(struct json_object *j);

#endif
