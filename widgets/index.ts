import type { RegistryWidgetsType } from '@rjsf/utils';
import type { WidgetName } from '../src/shared/registries';
import CodeWidget from './CodeWidget';
import ConsentWidget from './ConsentWidget';
import DateLimitWidget from './DateLimitWidget';
import { echoFirst } from './echoFirst';
import PasswordWidget from './PasswordWidget';
import PhotoSlotWidget from './PhotoSlotWidget';
import SelectWidget from './SelectWidget';
import UsCityWidget from './UsCityWidget';
import UsPhoneWidget from './UsPhoneWidget';
import UsStateWidget from './UsStateWidget';
import { STATES_PATH, statesOf } from './placesData';
import { preloadRemoteList } from './useRemoteList';

/** The custom widgets, by the names the UI schemas use in "ui:widget". */
export const widgets = {
  photo: PhotoSlotWidget,
  usState: UsStateWidget,
  usCity: UsCityWidget,
  dateLimit: DateLimitWidget,
  usPhone: echoFirst(UsPhoneWidget),
  password: echoFirst(PasswordWidget),
  consent: ConsentWidget,
  code: echoFirst(CodeWidget),
} satisfies RegistryWidgetsType & Record<WidgetName, unknown>;

/**
 * The lists a widget reads whatever the form holds, by its "ui:widget" name: a page begins them with
 * the form (src/client/form/StepPage.tsx) rather than once the widget is drawn.
 */
export const listPreloads: Partial<Record<WidgetName, (fetcher: (path: string) => Promise<unknown>) => void>> = {
  usState: (fetcher) => preloadRemoteList(STATES_PATH, statesOf, fetcher),
};

/** What a form is given: the custom widgets, and rjsf's own select replaced, so every list of choices looks alike. */
export const formWidgets = { ...widgets, SelectWidget } satisfies RegistryWidgetsType;

/** The bytes behind the photo fields (whose form values are only content types), for the upload. */
export { clearAllPhotos, clearPhoto, getPhoto, photoUrl, setPhoto } from './photoStore';
