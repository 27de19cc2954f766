import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { type AdminDocument, adminPost, downloadFile, partnerRecord } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, envelopeOf, retryAfterSeconds } from '../support/assertions.js';
import { fileOfSize, MIB, PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import { migrateTo, migrationBefore, migratorFor } from '../support/migrations.js';
import { postDocument, postRepresentative, profileOf } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { adminDocumentUrl } from '../support/paths.js';
import { auditActions, currentDocuments, type HasDb, storedFiles } from '../support/records.js';
import { fillDisk, tmpfsProblem, useAppOnTmpfs } from '../support/tmpfs.js';

/** Bytes of a detectable type that differ on every call, so each upload is a file of its own. */
let serial = 0;
const uniquePdf = () => Buffer.concat([PDF_BYTES, Buffer.from(`upload ${++serial}\n`)]);
const uniquePng = () => Buffer.concat([PNG_BYTES, Buffer.from(`upload ${++serial}`)]);

/** The files `work` left under DATA_DIR/files that were not there before (a suite's tests run one at a time). */
async function filesAddedBy(t: { dataDir: string }, work: () => Promise<void>): Promise<string[]> {
  const before = new Set(storedFiles(t));
  await work();
  return storedFiles(t)
    .filter((file) => !before.has(file))
    .sort();
}

async function documentRows({ db }: HasDb, partnerId: number) {
  return db.selectFrom('documents').selectAll().where('partner_id', '=', partnerId).execute();
}

async function currentSchema({ db }: HasDb): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? 'public';
}

interface RecordDocument extends AdminDocument {
  source: 'upload' | 'url';
  file_deleted_at: string | null;
}

for (const dialect of DIALECTS) {
  describe(`stored document files [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('keeps one file per document type for an unreviewed partner, however often it uploads', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const added = await filesAddedBy(suite.t, async () => {
        for (let upload = 0; upload < 5; upload++) {
          const response = await postDocument(
            suite.t,
            partner.token,
            { document_type: 'memart' },
            { file: { bytes: uniquePdf() } },
          );
          assert.equal(response.status, 201, response.text);
        }
        for (let save = 0; save < 3; save++) {
          const response = await postRepresentative(
            suite.t,
            partner.token,
            {},
            { id_file: { bytes: uniquePng(), name: 'id.png' } },
          );
          assert.ok([200, 201].includes(response.status), response.text);
        }
      });
      const current = await currentDocuments(suite.t, partner.companyId);
      assert.deepEqual(
        added,
        current.map((document) => document.storage_key).sort(),
        'one file per type on disk: the current memart and valid_id',
      );

      const rows = await documentRows(suite.t, partner.companyId);
      assert.equal(rows.length, 8, 'every upload keeps its row for the audit trail');
      for (const row of rows.filter((row) => row.superseded_at !== null)) {
        assert.equal(row.storage_key, null, 'a superseded undecided row names no file');
        assert.equal(row.file_deleted_at, row.superseded_at);
        assert.match(row.sha256 ?? '', /^[0-9a-f]{64}$/, 'what was uploaded is still on record');
      }
    });

    it("lists a superseded undecided upload in the operator's record, and its file answers 404 NOT_FOUND", async () => {
      const partner = await newPartner(suite, 'signed-in');
      const first = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'cac_certificate' },
        { file: { bytes: uniquePdf() } },
      );
      const second = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'cac_certificate' },
        { file: { bytes: uniquePdf() } },
      );
      assert.equal(second.status, 201, second.text);

      const documents = (await partnerRecord(suite.t, partner.companyId)).documents as RecordDocument[];
      const replaced = documents.find((document) => document.id === first.body.data.id);
      assert.deepEqual(
        { current: replaced?.current, source: replaced?.source, status: replaced?.status },
        { current: false, source: 'upload', status: 'pending_review' },
      );
      assert.equal(typeof replaced?.file_deleted_at, 'string');
      const kept = documents.find((document) => document.id === second.body.data.id);
      assert.equal(kept?.file_deleted_at, null);

      const download = await downloadFile(suite.t, partner.companyId, first.body.data.id);
      assert.equal(download.status, 404);
      const envelope = envelopeOf(download.bytes.toString('utf8'));
      assert.equal(envelope.error_code, 'NOT_FOUND');
      assert.match(envelope.message, /deleted/);
      assert.equal((await downloadFile(suite.t, partner.companyId, second.body.data.id)).status, 200);

      const deletions = await auditActions(suite.t, partner.companyId, 'onboarding.document_file_deleted');
      assert.deepEqual(
        deletions.map((event) => event.target_id),
        [first.body.data.id],
      );
    });

    it('keeps the file of a superseded document the operator decided, rejected or approved', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const upload = () =>
        postDocument(suite.t, partner.token, { document_type: 'memart' }, { file: { bytes: uniquePdf() } });
      const ids: string[] = [];
      const added = await filesAddedBy(suite.t, async () => {
        const rejected = await upload();
        ids.push(rejected.body.data.id);
        const rejection = await adminPost(
          suite.t,
          adminDocumentUrl(partner.companyId, rejected.body.data.id, 'reject'),
          { reason: 'Unreadable scan.' },
        );
        assert.equal(rejection.status, 200, rejection.text);
        const approved = await upload();
        ids.push(approved.body.data.id);
        const approval = await adminPost(
          suite.t,
          adminDocumentUrl(partner.companyId, approved.body.data.id, 'approve'),
        );
        assert.equal(approval.status, 200, approval.text);
        for (let again = 0; again < 3; again++) {
          const response = await upload();
          assert.equal(response.status, 201, response.text);
          ids.push(response.body.data.id);
        }
      });
      const rows = await documentRows(suite.t, partner.companyId);
      const keyOf = (id: string | undefined) => rows.find((row) => row.id === id)?.storage_key;
      assert.deepEqual(
        added,
        [keyOf(ids[0]), keyOf(ids[1]), keyOf(ids[4])].sort(),
        'the rejected and the approved files stay, with the current one; the undecided ones went',
      );
      for (const id of ids.slice(0, 2)) {
        const download = await downloadFile(suite.t, partner.companyId, id);
        assert.equal(download.status, 200, `the decided ${id} can still be read`);
      }
    });

    it('leaves one file, the current one, when uploads of one type race', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const added = await filesAddedBy(suite.t, async () => {
        const responses = await Promise.all([
          ...Array.from({ length: 6 }, () =>
            postDocument(
              suite.t,
              partner.token,
              { document_type: 'cac_certificate' },
              { file: { bytes: uniquePdf() } },
            ),
          ),
          ...Array.from({ length: 4 }, () =>
            postRepresentative(
              suite.t,
              partner.token,
              {},
              { id_file: { bytes: uniquePng(), name: 'id.png' } },
            ),
          ),
        ]);
        for (const response of responses) assert.ok([200, 201].includes(response.status), response.text);
      });
      const current = await currentDocuments(suite.t, partner.companyId);
      assert.equal(current.length, 2);
      assert.deepEqual(added, current.map((document) => document.storage_key).sort());
      for (const document of current) {
        const download = await downloadFile(suite.t, partner.companyId, document.id);
        assert.equal(download.status, 200);
      }
    });

    it('deletes at housekeeping a file whose deletion a crash interrupted after the commit', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const upload = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'other' },
        { file: { bytes: uniquePdf() } },
      );
      const [row] = await currentDocuments(suite.t, partner.companyId, 'other');
      assert.ok(row?.storage_key);
      // What a crash between the superseding transaction and the file's removal leaves behind.
      const supersededAt = suite.t.clock.now();
      await suite.t.db
        .updateTable('documents')
        .set({ superseded_at: supersededAt, file_deleted_at: supersededAt })
        .where('id', '=', upload.body.data.id)
        .execute();
      assert.ok(storedFiles(suite.t).includes(row.storage_key));

      await suite.t.app.housekeeping();
      assert.ok(!storedFiles(suite.t).includes(row.storage_key), 'the file is gone');
      const [after] = await suite.t.db
        .selectFrom('documents')
        .select(['storage_key', 'file_deleted_at'])
        .where('id', '=', upload.body.data.id)
        .execute();
      assert.deepEqual(after, { storage_key: null, file_deleted_at: supersededAt });
    });
  });

  describe(`stored document files from before the rule [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('marks superseded undecided uploads by migration, and housekeeping deletes their files; decided ones stay', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const upload = async (documentType: string) => {
        const response = await postDocument(
          suite.t,
          partner.token,
          { document_type: documentType },
          { file: { bytes: uniquePdf() } },
        );
        assert.equal(response.status, 201, response.text);
        return response.body.data.id as string;
      };
      const undecided = await upload('memart');
      await upload('memart');
      const rejected = await upload('cac_certificate');
      const rejection = await adminPost(suite.t, adminDocumentUrl(partner.companyId, rejected, 'reject'), {
        reason: 'Unreadable scan.',
      });
      assert.equal(rejection.status, 200, rejection.text);
      await upload('cac_certificate');

      // What an upload superseded before this rule left: its file, and a row still naming it.
      const key = `aa/${randomUUID()}`;
      mkdirSync(path.join(suite.t.dataDir, 'files', 'aa'), { recursive: true });
      writeFileSync(path.join(suite.t.dataDir, 'files', key), uniquePdf());
      await suite.t.db
        .updateTable('documents')
        .set({ storage_key: key, file_deleted_at: null })
        .where('id', '=', undecided)
        .execute();
      const migrator = migratorFor(
        suite.t.db,
        suite.dialect === 'postgres' ? await currentSchema(suite.t) : undefined,
      );
      const down = await migrateTo(migrator, migrationBefore('2026-11-27-02-document-files'));
      assert.equal(down.results?.at(-1)?.migrationName, '2026-11-27-02-document-files', String(down.error));
      const up = await migrator.migrateToLatest();
      assert.equal(up.error, undefined);

      const rows = await documentRows(suite.t, partner.companyId);
      const row = (id: string) => rows.find((candidate) => candidate.id === id);
      assert.equal(row(undecided)?.file_deleted_at, row(undecided)?.superseded_at);
      assert.equal(row(rejected)?.file_deleted_at, null);
      const rejectedKey = row(rejected)?.storage_key;
      assert.ok(rejectedKey);

      await suite.t.app.housekeeping();
      const files = storedFiles(suite.t);
      assert.ok(!files.includes(key), 'the superseded undecided file is gone');
      assert.ok(files.includes(rejectedKey), 'the rejected one stays');
      assert.equal(
        (await documentRows(suite.t, partner.companyId)).find((r) => r.id === undecided)?.storage_key,
        null,
      );
    });
  });

  describe(`uploads on a full disk [${dialect.name}]`, { skip: dialect.skip || tmpfsProblem }, () => {
    // DATA_DIR/files on a small tmpfs the test fills: the kernel answers ENOSPC to the upload's
    // write. The database lives elsewhere (PostgreSQL, or SQLite beside the mount).
    const suite = useAppOnTmpfs(dialect.name, 'files', 16 * MIB);

    it('answers 503 STORAGE_FULL with Retry-After, keeps no partial file and no row, and recovers once space is freed', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const filler = path.join(suite.mount, 'filler');
      // Room for part of the upload only: the write starts, then fails.
      fillDisk(filler, 256 * 1024);
      const file = { bytes: fileOfSize(MIB, PDF_BYTES) };

      const refused = await postDocument(suite.t, partner.token, { document_type: 'memart' }, { file });
      assertError(refused, 503, 'STORAGE_FULL');
      assert.match(refused.body.message, /disk is full/);
      retryAfterSeconds(refused);
      const representative = await postRepresentative(
        suite.t,
        partner.token,
        {},
        { id_file: { bytes: fileOfSize(MIB, PNG_BYTES), name: 'id.png' } },
      );
      assertError(representative, 503, 'STORAGE_FULL');

      assert.deepEqual(
        storedFiles(suite.t).filter((name) => name !== 'filler'),
        [],
        'no file, and no .partial, is left',
      );
      assert.deepEqual(await documentRows(suite.t, partner.companyId), []);
      assert.equal((await profileOf(suite.t, partner.token)).representative, null);
      assert.deepEqual(await auditActions(suite.t, partner.companyId, 'onboarding.document_uploaded'), []);

      rmSync(filler);
      const accepted = await postDocument(suite.t, partner.token, { document_type: 'memart' }, { file });
      assert.equal(accepted.status, 201, accepted.text);
      const [row] = await currentDocuments(suite.t, partner.companyId, 'memart');
      assert.deepEqual(storedFiles(suite.t), [row?.storage_key]);
      const saved = await postRepresentative(suite.t, partner.token);
      assert.equal(saved.status, 201, saved.text);
    });
  });
}
