package org.fts.samples;

/** A strict check that a text is one JSON value (RFC 8259), for shipped JSON files; no parser is on the class path. */
final class JsonSyntax {
    private final String s;
    private int i;

    private JsonSyntax(String s) {
        this.s = s;
    }

    /** Throws IllegalArgumentException naming the offset if {@code text} is not one JSON value. */
    static void check(String text) {
        JsonSyntax p = new JsonSyntax(text);
        p.value();
        p.space();
        if (p.i != text.length()) {
            throw p.error("text after the value");
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at offset " + i);
    }

    private void space() {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
    }

    private void value() {
        space();
        if (i >= s.length()) {
            throw error("no value");
        }
        char c = s.charAt(i);
        if (c == '{') {
            members('}', true);
        } else if (c == '[') {
            members(']', false);
        } else if (c == '"') {
            string();
        } else if (s.startsWith("true", i) || s.startsWith("null", i)) {
            i += 4;
        } else if (s.startsWith("false", i)) {
            i += 5;
        } else {
            number();
        }
    }

    private void members(char close, boolean object) {
        i++;
        space();
        if (i < s.length() && s.charAt(i) == close) {
            i++;
            return;
        }
        while (true) {
            if (object) {
                space();
                string();
                space();
                expect(':');
            }
            value();
            space();
            if (i < s.length() && s.charAt(i) == ',') {
                i++;
            } else {
                expect(close);
                return;
            }
        }
    }

    private void expect(char c) {
        if (i >= s.length() || s.charAt(i) != c) {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private void string() {
        expect('"');
        while (i < s.length() && s.charAt(i) != '"') {
            char c = s.charAt(i++);
            if (c < 0x20) {
                throw error("a control character in a string");
            }
            if (c == '\\') {
                if (i >= s.length() || "\"\\/bfnrtu".indexOf(s.charAt(i)) < 0) {
                    throw error("a bad escape");
                }
                if (s.charAt(i) == 'u' && !(i + 5 <= s.length() && s.substring(i + 1, i + 5).matches("[0-9a-fA-F]{4}"))) {
                    throw error("a \\u escape without four hex digits");
                }
                i += s.charAt(i) == 'u' ? 5 : 1;
            }
        }
        expect('"');
    }

    private void number() {
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        if (!s.substring(start, i).matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            throw error("not a value");
        }
    }
}
