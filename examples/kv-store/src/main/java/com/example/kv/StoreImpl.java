package com.example.kv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

import kv.NotFound;
import kv.StorePOA;
import org.fts.checkpoint.CheckpointableOperations;
import org.fts.checkpoint.InvalidState;

/**
 * The store's servant. Deterministic: the same calls in the same order leave every replica with the same map
 * and the same replies (no clock, no randomness, and a sorted map, so the state's bytes are the same too).
 * Checkpointable: a replica that joins or restarts gets the state of the others through get_state/set_state.
 */
public class StoreImpl extends StorePOA implements CheckpointableOperations {
    private final TreeMap<String, String> entries = new TreeMap<>();

    @Override
    public synchronized String put(String key, String value) {
        String old = entries.put(key, value);
        return old == null ? "" : old;
    }

    @Override
    public synchronized String get(String key) throws NotFound {
        String v = entries.get(key);
        if (v == null) {
            throw new NotFound(key);
        }
        return v;
    }

    @Override
    public synchronized boolean remove(String key) {
        return entries.remove(key) != null;
    }

    @Override
    public synchronized int size() {
        return entries.size();
    }

    /** The whole map: its size, then each key and value, in key order. */
    @Override
    public synchronized byte[] get_state() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(entries.size());
            for (Map.Entry<String, String> e : entries.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeUTF(e.getValue());
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    @Override
    public synchronized void set_state(byte[] state) throws InvalidState {
        TreeMap<String, String> read = new TreeMap<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                read.put(in.readUTF(), in.readUTF());
            }
            if (in.available() != 0) {
                throw new InvalidState("a store's state has " + in.available() + " bytes too many");
            }
        } catch (IOException e) {
            throw new InvalidState("not a store's state: " + e);
        }
        entries.clear();
        entries.putAll(read);
    }
}
