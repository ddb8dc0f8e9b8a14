package org.fts.gc.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class MarksTest {
    @Test
    void marksReadBackAsWrittenAndTheSameMarksAreTheSameBytesWhateverTheMapsOrder() throws IOException {
        Map<String, Long> one = new LinkedHashMap<>();
        one.put("r2#b", 7L);
        one.put("r0#a", 12L);
        one.put("r1#c", 0L);
        Map<String, Long> other = new LinkedHashMap<>();
        other.put("r1#c", 0L);
        other.put("r0#a", 12L);
        other.put("r2#b", 7L);
        assertArrayEquals(bytes(one), bytes(other));
        assertEquals(one, Marks.read(new DataInputStream(new ByteArrayInputStream(bytes(one)))));
        assertEquals(Map.of(), Marks.read(new DataInputStream(new ByteArrayInputStream(bytes(new HashMap<>())))));
    }

    @Test
    void aNegativeCountIsDamage() {
        byte[] damaged = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe};
        assertThrows(IOException.class, () -> Marks.read(new DataInputStream(new ByteArrayInputStream(damaged))));
    }

    private static byte[] bytes(Map<String, Long> marks) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(b)) {
            Marks.write(out, marks);
        }
        return b.toByteArray();
    }
}
