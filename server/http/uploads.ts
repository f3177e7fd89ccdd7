/**
 * Multipart uploads (CSV imports). The contract validator parses them with multer, within the limits set in
 * server/app.ts, and leaves each file part in `req.files` with an empty placeholder in the body. This puts each
 * file into the body under its part's name, so the handler gets it with the other fields.
 */
import type { NextFunction, Request, Response } from 'express';

interface MulterFile {
  fieldname: string;
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

/** What multer accepts per upload: one file of at most 10 MB and a few small text fields. */
export const UPLOAD_LIMITS = { fileSize: 10 * 1024 * 1024, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 11 };

export function attachUploads(req: Request, _res: Response, next: NextFunction) {
  const files = (req as Request & { files?: MulterFile[] }).files;
  if (Array.isArray(files) && files.length > 0 && typeof req.body === 'object' && req.body !== null) {
    for (const file of files) {
      (req.body as Record<string, unknown>)[file.fieldname] = { buffer: file.buffer, originalname: file.originalname, mimetype: file.mimetype, size: file.size };
    }
  }
  next();
}
