import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearAllPhotos, clearPhoto, getPhoto, photoUrl, setPhoto } from '../../widgets/index';
import { photosVersion, subscribePhotos } from '../../widgets/photoStore';
import { fitWithin, isPreviewable, pickedFileType } from '../../widgets/resizeImage';

describe('photo store', () => {
  afterEach(() => {
    clearAllPhotos();
    vi.restoreAllMocks();
  });

  it('keeps a blob per field name', () => {
    const front = new Blob(['front'], { type: 'image/jpeg' });
    setPhoto('vehicleImageFront', front);
    expect(getPhoto('vehicleImageFront')).toBe(front);
    expect(getPhoto('vehicleImageRear')).toBeUndefined();
  });

  it('hands out one cached object URL per stored blob', () => {
    const create = vi.spyOn(URL, 'createObjectURL');
    setPhoto('profilePicture', new Blob(['a'], { type: 'image/jpeg' }));
    const url = photoUrl('profilePicture');
    expect(url).toMatch(/^blob:/);
    expect(photoUrl('profilePicture')).toBe(url);
    expect(create).toHaveBeenCalledTimes(1);
    expect(photoUrl('nothing')).toBeUndefined();
  });

  it('revokes the old URL when the photo is replaced or cleared', () => {
    const revoke = vi.spyOn(URL, 'revokeObjectURL');
    setPhoto('profilePicture', new Blob(['a']));
    const first = photoUrl('profilePicture');
    setPhoto('profilePicture', new Blob(['b']));
    expect(revoke).toHaveBeenCalledWith(first);
    const second = photoUrl('profilePicture');
    expect(second).not.toBe(first);
    clearPhoto('profilePicture');
    expect(revoke).toHaveBeenCalledWith(second);
    expect(getPhoto('profilePicture')).toBeUndefined();
  });

  it('clears every photo at once', () => {
    setPhoto('a', new Blob(['a']));
    setPhoto('b', new Blob(['b']));
    photoUrl('a');
    clearAllPhotos();
    expect(getPhoto('a')).toBeUndefined();
    expect(getPhoto('b')).toBeUndefined();
  });

  it('tells subscribers when a photo changes', () => {
    const listener = vi.fn();
    const unsubscribe = subscribePhotos(listener);
    const before = photosVersion();
    setPhoto('a', new Blob(['a']));
    clearPhoto('a');
    clearPhoto('a'); // nothing to clear: no news
    expect(listener).toHaveBeenCalledTimes(2);
    expect(photosVersion()).toBe(before + 2);
    unsubscribe();
    setPhoto('a', new Blob(['a']));
    expect(listener).toHaveBeenCalledTimes(2);
  });
});

describe('fitWithin (photo resize)', () => {
  it('brings a 4000×3000 photo to a 1600 px long edge', () => {
    expect(fitWithin(4000, 3000, 1600)).toEqual({ width: 1600, height: 1200 });
  });

  it('scales a portrait photo by its height', () => {
    expect(fitWithin(3024, 4032, 1600)).toEqual({ width: 1200, height: 1600 });
  });

  it('never scales a small photo up', () => {
    expect(fitWithin(800, 600, 1600)).toEqual({ width: 800, height: 600 });
  });
});

describe('pickedFileType', () => {
  it('uses the type the browser reports', () => {
    expect(pickedFileType({ type: 'image/png', name: 'x.jpg' })).toBe('image/png');
    expect(pickedFileType({ type: 'application/pdf', name: 'licence.pdf' })).toBe('application/pdf');
  });

  it('guesses an empty type from the name (Android hands HEIC over without a type)', () => {
    expect(pickedFileType({ type: '', name: 'IMG_0001.HEIC' })).toBe('image/heic');
    expect(pickedFileType({ type: '', name: 'photo.jpeg' })).toBe('image/jpeg');
  });

  it('falls back to application/octet-stream, which the image rule rejects', () => {
    expect(pickedFileType({ type: '', name: 'notes' })).toBe('application/octet-stream');
    expect(pickedFileType({ type: '', name: 'notes.txt' })).toBe('application/octet-stream');
  });
});

describe('isPreviewable', () => {
  it('previews what every browser can draw, not HEIC', () => {
    expect(isPreviewable('image/jpeg')).toBe(true);
    expect(isPreviewable('image/png')).toBe(true);
    expect(isPreviewable('image/heic')).toBe(false);
    expect(isPreviewable('')).toBe(false);
  });
});
