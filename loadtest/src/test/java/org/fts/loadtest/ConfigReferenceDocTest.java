package org.fts.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;

import org.fts.config.ConfigReference;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the keys the code declares (this module sees every module). */
class ConfigReferenceDocTest {
    @Test
    void theDocumentedTableIsTheDeclaredOne() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
        String start = "<!-- config-table:start -->\n";
        String end = "<!-- config-table:end -->";
        String documented = doc.substring(doc.indexOf(start) + start.length(), doc.indexOf(end));
        assertFalse(ConfigReference.allKeys().isEmpty());
        assertEquals(ConfigReference.markdownTable(), documented,
                "docs/configuration.md is out of date: regenerate the table with bin/fts config");
    }
}
