package org.fts.goa.intake;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.io.UncheckedIOException;

/**
 * The GOA's wire forms, written with {@link DataOutputStream} into memory. Writing there fails only for a
 * string of more than 65535 bytes in modified UTF-8, which is an {@link IllegalArgumentException}.
 */
public final class Encoding {
    /** What writes one wire form. */
    @FunctionalInterface
    public interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    private Encoding() {
    }

    /** The bytes {@code body} writes, with room for {@code sizeHint} of them. */
    public static byte[] bytes(int sizeHint, Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(sizeHint);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            body.write(out);
        } catch (UTFDataFormatException e) {
            throw new IllegalArgumentException("a string longer than 65535 bytes: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("an in-memory stream failed", e);   // cannot happen
        }
        return bytes.toByteArray();
    }
}
