import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  contentTypeFor,
  TYPES_BY_EXTENSION,
  typeForExtension,
  withTypeFromExtension,
} from '../../../shared/http/content-type.ts';

describe('typeForExtension', () => {
  it('names the type of every extension a static site commonly serves', () => {
    const expected: Record<string, string> = {
      'index.html': 'text/html; charset=utf-8',
      'old.htm': 'text/html; charset=utf-8',
      'site.css': 'text/css; charset=utf-8',
      'app.js': 'text/javascript; charset=utf-8',
      'module.mjs': 'text/javascript; charset=utf-8',
      'data.json': 'application/json',
      'app.js.map': 'application/json',
      'robots.txt': 'text/plain; charset=utf-8',
      'feed.xml': 'application/xml',
      'logo.svg': 'image/svg+xml',
      'a.png': 'image/png',
      'a.jpg': 'image/jpeg',
      'a.jpeg': 'image/jpeg',
      'a.gif': 'image/gif',
      'a.webp': 'image/webp',
      'a.avif': 'image/avif',
      'favicon.ico': 'image/x-icon',
      'f.woff': 'font/woff',
      'f.woff2': 'font/woff2',
      'f.ttf': 'font/ttf',
      'f.otf': 'font/otf',
      'v.mp4': 'video/mp4',
      'v.webm': 'video/webm',
      'v.m4v': 'video/mp4',
      'v.mov': 'video/quicktime',
      's.mp3': 'audio/mpeg',
      's.m4a': 'audio/mp4',
      's.ogg': 'audio/ogg',
      's.wav': 'audio/wav',
      'doc.pdf': 'application/pdf',
      'all.zip': 'application/zip',
      'code.wasm': 'application/wasm',
      'live.m3u8': 'application/vnd.apple.mpegurl',
      'seg0.ts': 'video/mp2t',
      'chunk.m4s': 'video/iso.segment',
      'stream.mpd': 'application/dash+xml',
      'subs.vtt': 'text/vtt; charset=utf-8',
      'table.csv': 'text/csv; charset=utf-8',
      'README.md': 'text/markdown; charset=utf-8',
    };
    for (const [name, type] of Object.entries(expected)) expect(typeForExtension(name), name).toBe(type);
  });

  it('gives text types a UTF-8 charset, and no other type a charset', () => {
    for (const type of Object.values(TYPES_BY_EXTENSION)) {
      expect(type.includes('charset=utf-8'), type).toBe(type.startsWith('text/'));
    }
  });

  it('keeps a .gz as opaque bytes, whatever it compresses', () => {
    expect(typeForExtension('app.js.gz')).toBe('application/octet-stream');
    expect(typeForExtension('backup.tar.gz')).toBe('application/octet-stream');
  });

  it('reads the extension of the last path segment only, case-insensitively', () => {
    expect(typeForExtension('assets.v2/LOGO.PNG')).toBe('image/png');
    expect(typeForExtension('/images/photo.JpG')).toBe('image/jpeg');
    expect(typeForExtension('dir.html/readme')).toBeUndefined();
  });

  it('knows no type for names without an extension, dotfiles or unknown extensions', () => {
    expect(typeForExtension('LICENSE')).toBeUndefined();
    expect(typeForExtension('.htaccess')).toBeUndefined();
    expect(typeForExtension('dir/.env')).toBeUndefined();
    expect(typeForExtension('archive.7z')).toBeUndefined();
    expect(typeForExtension('trailing.')).toBeUndefined();
    expect(typeForExtension('proto.constructor')).toBeUndefined();
    expect(typeForExtension('a.__proto__')).toBeUndefined();
  });
});

describe('contentTypeFor', () => {
  it("keeps the origin's own type whenever it says something, even one the extension contradicts", () => {
    expect(contentTypeFor('page.html', 'text/plain')).toBe('text/plain');
    expect(contentTypeFor('data.bin', 'image/png')).toBe('image/png');
    expect(contentTypeFor('a.css', 'text/css; charset=iso-8859-1')).toBe('text/css; charset=iso-8859-1');
  });

  it('fills in the type when the origin sent none (RFC 9110 §8.3)', () => {
    expect(contentTypeFor('index.html', null)).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('README', null)).toBeUndefined();
  });

  it("replaces S3's binary/octet-stream default and application/octet-stream, in any case or with parameters", () => {
    expect(contentTypeFor('index.html', 'binary/octet-stream')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('app.js', 'application/octet-stream')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('a.png', 'Application/Octet-Stream; charset=binary')).toBe('image/png');
  });

  it('leaves the default alone when the extension says nothing better', () => {
    expect(contentTypeFor('blob', 'binary/octet-stream')).toBe('binary/octet-stream');
    expect(contentTypeFor('disk.img', 'application/octet-stream')).toBe('application/octet-stream');
  });

  it('never turns a type the origin sent into no type', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (path, sent) => {
        expect(contentTypeFor(path, sent)).toBeDefined();
      }),
    );
  });
});

describe('withTypeFromExtension', () => {
  it('sets the corrected type on the headers and leaves the others alone', () => {
    const headers = withTypeFromExtension(
      new Headers({ 'content-type': 'binary/octet-stream', etag: '"v1"' }),
      'docs/index.html',
    );
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(headers.get('etag')).toBe('"v1"');
  });

  it('adds no Content-Type when neither the origin nor the extension names one', () => {
    expect(withTypeFromExtension(new Headers(), 'README').has('content-type')).toBe(false);
  });
});
