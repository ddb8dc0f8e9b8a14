package com.example.bank;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import banking.AuditPOA;
import org.fts.checkpoint.CheckpointableOperations;
import org.fts.checkpoint.InvalidState;

/**
 * An audit trail, the entries in the order recorded. The same servant runs replicated (its own group, {@code audit})
 * and plain (one process, a plain POA): as a group it executes each transfer's call once, although every bank
 * replica makes it; plain, the bank's adaptor lets one replica make it ({@code fts.outcalls=ordered}).
 */
public class AuditImpl extends AuditPOA implements CheckpointableOperations {
    private final List<String> entries = new ArrayList<>();

    @Override
    public synchronized long record(String entry) {
        entries.add(entry);
        return entries.size();
    }

    @Override
    public synchronized long count() {
        return entries.size();
    }

    @Override
    public synchronized String[] entries() {
        return entries.toArray(new String[0]);
    }

    @Override
    public synchronized byte[] get_state() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(b)) {
            out.writeInt(entries.size());
            for (String e : entries) {
                out.writeUTF(e);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return b.toByteArray();
    }

    @Override
    public synchronized void set_state(byte[] s) throws InvalidState {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(s))) {
            List<String> read = new ArrayList<>();
            for (int n = in.readInt(); n > 0; n--) {
                read.add(in.readUTF());
            }
            entries.clear();
            entries.addAll(read);
        } catch (IOException e) {
            throw new InvalidState("an audit trail's state: " + e);
        }
    }
}
